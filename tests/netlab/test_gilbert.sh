#!/bin/bash
# netlab test: Gilbert-Elliott loss produces bursts with the configured mean burst length
# (ge_burst = 4 packets, long-run loss 5%): measured mean burst within 20%, loss within 30%.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 1, "seed": 11,
  "links": [ {"link": "a>b", "ge_burst": 4, "ge_loss": 0.05} ] }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
X b -- "$NLPROBE" sink 7001 2 > sink.out & K=$!
sleep 0.2
X a -- "$NLPROBE" blast 198.18.0.2 7001 40000 40000 100 > blast.out
wait $K
python3 - "$(cat sink.out)" <<'P'
import sys
kv = dict(x.split('=') for x in sys.argv[1].split())
mb = float(kv['mean_burst']); loss = int(kv['lost_in_gaps']) / int(kv['highest'])
assert abs(mb - 4) <= 0.8, f'mean burst {mb}, want 4 +- 0.8'
assert abs(loss - 0.05) <= 0.015, f'loss {loss}, want 0.05 +- 0.015'
assert int(kv['reordered']) == 0
print(f'ok: {kv["bursts"]} bursts, mean burst {mb:.2f} (want 4), loss {loss:.4f} (want 0.05)')
P
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash "$T/inner.sh" || fail "Gilbert-Elliott"
ok "gilbert"
