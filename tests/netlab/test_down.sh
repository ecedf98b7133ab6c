#!/bin/bash
# netlab test: a downed link drops everything and the counters say so — scheduled events in the
# topology (rail 0 down from t=1 s to t=2 s) and run-time `netlab down` / `netlab up` (rail 1).
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 2,
  "events": [ {"at": 1.0, "do": "down a-b@0"},
              {"at": 2.0, "do": "up a-b@0"} ] }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
# rail 0, scheduled events: 1000 packets/s from t~0.3 s to t~3.3 s; one second of them dropped
X b -- "$NLPROBE" sink 7003 1.5 > s3.out & K=$!
sleep 0.2
X a -- "$NLPROBE" blast 198.18.0.2 7003 3000 1000 100 >/dev/null
wait $K
down=$(stat_of 0 a b drop_down); fwd=$(stat_of 0 a b fwd_pkts)
echo "rail 0: $(cat s3.out); drop_down=$down fwd_pkts=$fwd"
python3 - "$down" "$fwd" "$(cat s3.out)" <<'P'
import sys
down, fwd = int(sys.argv[1]), int(sys.argv[2]); kv = dict(x.split('=') for x in sys.argv[3].split())
assert 900 <= down <= 1100, f'drop_down {down}, want ~1000 (1 s at 1000/s)'
assert int(kv['recv']) + down == 3000, 'every packet either delivered or counted as drop_down'
assert int(kv['bursts']) == 1, 'one outage'
print('ok: scheduled down/up: one outage of', down, 'packets')
P
# rail 1, run-time control: down -> 500 packets all dropped, up -> 500 packets all delivered
"$NETLAB" down a@1 | grep -q '^ok 2 links' || { echo "FAIL: netlab down"; exit 1; }
"$NETLAB" stats a-b@1 | grep -q 'up=0' || { echo "FAIL: state not shown"; exit 1; }
X b -- "$NLPROBE" sink 7001 1 > s1.out & K=$!
sleep 0.2
X a -- "$NLPROBE" blast 198.18.1.2 7001 500 5000 100 >/dev/null
wait $K
grep -q '^recv=0 ' s1.out || { echo "FAIL: packets crossed a downed link: $(cat s1.out)"; exit 1; }
[ "$(stat_of 1 a b drop_down)" = 505 ] || { echo "FAIL: drop_down $(stat_of 1 a b drop_down), want 505"; exit 1; }
[ "$(stat_of 1 a b fwd_pkts)" = 0 ] || { echo "FAIL: fwd_pkts on a downed link"; exit 1; }
echo "ok: netlab down: 505 of 505 dropped, counted as drop_down"
"$NETLAB" up a@1 >/dev/null
X b -- "$NLPROBE" sink 7002 1 > s2.out & K=$!
sleep 0.2
X a -- "$NLPROBE" blast 198.18.1.2 7002 500 5000 100 >/dev/null
wait $K
grep -q '^recv=500 ' s2.out || { echo "FAIL: link did not come back: $(cat s2.out)"; exit 1; }
echo "ok: netlab up: 500 of 500 delivered"
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash -c ". '$HERE/lib_inner.sh'; . '$T/inner.sh'" || fail "link down"
ok "down"
