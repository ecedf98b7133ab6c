#!/bin/bash
# netlab test: a host NIC rate is shared by all of the host's traffic on that rail — two TCP
# streams into one host whose NIC runs at 100 Mbit/s share 100 Mbit/s (sum within 10% of
# 96.5 Mbit/s goodput), as on a switched 100 Mbit/s cluster, while the pair links are unlimited.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b", "c"], "rails": 1,
  "defaults": { "delay_ms": 1 },
  "nic": { "rate_mbit": 100, "queue_pkts": 200 } }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
for attempt in 1 2; do
  X a -- "$NLPROBE" tsink 7001 > s1.out & K1=$!
  X a -- "$NLPROBE" tsink 7002 > s2.out & K2=$!
  sleep 0.2
  X b -- "$NLPROBE" tsend 198.18.0.1 7001 3 >/dev/null & S1=$!
  X c -- "$NLPROBE" tsend 198.18.0.1 7002 3 >/dev/null
  wait $S1 $K1 $K2
  python3 - "$(cat s1.out)" "$(cat s2.out)" <<'P' && break
import sys
a, b = (dict(x.split('=') for x in s.split()) for s in sys.argv[1:3])
tot = float(a['mbit']) + float(b['mbit']); want = 100 * 1448 / 1500
assert abs(tot - want) <= 0.10 * want, f'sum {tot:.1f} Mbit/s, want {want:.1f} +- 10%'
print(f'ok: b->a {a["mbit"]} + c->a {b["mbit"]} = {tot:.1f} Mbit/s through a 100 Mbit/s NIC (want {want:.1f} +- 10%)')
P
  [ $attempt = 2 ] && exit 1
  echo "retrying once (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
done
"$NETLAB" stats | grep '^nic'
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash "$T/inner.sh" || fail "shared NIC rate"
ok "nic"
