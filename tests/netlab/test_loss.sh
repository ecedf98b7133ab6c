#!/bin/bash
# netlab test: Bernoulli loss p measured over 20000 packets lies within the 99.9% binomial
# interval (normal approximation, z = 3.29), for p = 0.05 and p = 0.01; the receiver sees
# exactly the packets the forwarder did not drop; `netlab set` changes loss at run time.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 1, "seed": 7,
  "links": [ {"link": "a>b", "loss": 0.05} ] }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
trial() { # p port
  before=$("$NETLAB" stats | grep '^link rail=0 src=a dst=b ')
  X b -- "$NLPROBE" sink $2 2 > sink.out & K=$!
  sleep 0.2
  X a -- "$NLPROBE" blast 198.18.0.2 $2 20000 20000 200 > blast.out
  wait $K
  after=$("$NETLAB" stats | grep '^link rail=0 src=a dst=b ')
  python3 - "$1" "$before" "$after" "$(cat sink.out)" <<'P'
import sys, math
p = float(sys.argv[1]); n = 20000
kv = lambda s: dict(x.split('=') for x in s.split()[1:] if '=' in x)
b, a, sink = kv(sys.argv[2]), kv(sys.argv[3]), kv('x ' + sys.argv[4])
lost = int(a['drop_loss']) - int(b['drop_loss'])
fwd = int(a['fwd_pkts']) - int(b['fwd_pkts'])
half = 3.29 * math.sqrt(n * p * (1 - p))
lo, hi = n * p - half, n * p + half
assert lo <= lost <= hi, f'drop_loss {lost} outside [{lo:.0f}, {hi:.0f}]'
# the 5 end markers may also be lost
assert 0 <= (fwd - int(sink['recv'])) <= 5 and int(sink['recv']) == n - lost, f'receiver {sink["recv"]}, forwarded {fwd}, lost {lost}'
print(f'ok: p={p}: lost {lost} of {n} (interval [{lo:.0f}, {hi:.0f}]), received {sink["recv"]}')
P
}
trial 0.05 7001
"$NETLAB" set 'a>b' loss=0.01 >/dev/null
trial 0.01 7002
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash "$T/inner.sh" || fail "loss accuracy"
ok "loss"
