#!/bin/bash
# netlab test: a rate limit measured with a TCP stream lies within 10% of the configured rate
# (goodput compared with rate x 1448/1500, the TCP payload share of a 1500-byte packet with
# timestamps), at 100 Mbit/s and, after `netlab set`, at 20 Mbit/s (drop-tail queue of 100).
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 1,
  "defaults": { "delay_ms": 1 },
  "links": [ {"link": "a>b", "rate_mbit": 100, "queue_pkts": 100} ] }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
trial() { # rate port secs; one retry: a CPU-load spike from other jobs can starve the stream
  for attempt in 1 2; do
    X b -- "$NLPROBE" tsink $2 > tcp.out & K=$!
    sleep 0.2
    X a -- "$NLPROBE" tsend 198.18.0.2 $2 $3 >/dev/null
    wait $K
    python3 - "$1" "$(cat tcp.out)" <<'P' && return 0
import sys
rate = float(sys.argv[1]); kv = dict(x.split('=') for x in sys.argv[2].split())
want = rate * 1448 / 1500; got = float(kv['mbit'])
assert abs(got - want) <= 0.10 * want, f'goodput {got} Mbit/s, want {want:.1f} +- 10%'
print(f'ok: rate {rate} Mbit/s: TCP goodput {got} Mbit/s (want {want:.1f} +- 10%)')
P
    [ $attempt = 1 ] && echo "retrying once (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
    set -- "$1" $(($2 + 100)) "$3"
  done
  return 1
}
trial 100 7001 3
"$NETLAB" set 'a>b' rate_mbit=20 >/dev/null
trial 20 7002 3
line=$("$NETLAB" stats | grep '^link rail=0 src=a dst=b ')
echo "$line"
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash "$T/inner.sh" || fail "rate"
ok "rate"
