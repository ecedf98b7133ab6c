#!/usr/bin/env bash
# mixed.sh — the mixed point-to-point + one-sided benchmark (rma_mixed) on emulated hosts:
# 4 ranks on 2 netlab hosts (rank i on host i mod 2, so both pairs cross the link), a link with
# DELAY_MS one-way delay and LOSS packet loss in each direction; for every transport of ours the
# program runs REPS times (transports interleaved), and the table gives the medians of the
# ping-pong stream alone, the Put stream alone, their sum, both at once, and the ratio
# mixed / (pp + rma) (below 1: the two streams overlap; above 1: they get in each other's way).
# Needs root, /dev/net/tun and ip netns (netlab).  Usage:
#   bench/rma/mixed.sh [BUILD_DIR]     env: LOSSES="0.01" (space list), DELAY_MS=1, REPS=3,
#   TRANSPORTS="tcp sctp", ARGS="--iters 100 --window 8 --pp-size 64 --rma-size 65536 --reps 3"
set -u
build=$(cd "${1:-$(dirname "$0")/../../build}" && pwd)
mpiexec=$build/tools/mpiexec/mpiexec
netlab=$build/tools/netlab/netlab
prog=$build/bench/rma/rma_mixed
LOSSES=${LOSSES:-0.01} DELAY_MS=${DELAY_MS:-1} REPS=${REPS:-3} TRANSPORTS=${TRANSPORTS:-tcp sctp}
ARGS=${ARGS:---iters 100 --window 8 --pp-size 64 --rma-size 65536 --reps 3}
[ "$(id -u)" = 0 ] || { echo "mixed.sh: needs root (netlab)"; exit 77; }
for f in "$mpiexec" "$netlab" "$prog"; do [ -x "$f" ] || { echo "mixed.sh: $f is not built"; exit 1; }; done
tmp=$(mktemp -d /tmp/sm-rmamixed.XXXXXX)
trap '"$netlab" gc >/dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
echo "# rma_mixed on netlab: 2 hosts, 4 ranks (2 pairs across the link), delay ${DELAY_MS} ms, args: $ARGS"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo
echo "| loss | transport | runs ok | pp alone s | rma alone s | pp + rma s | mixed s | mixed / (pp + rma) |"
echo "|---|---|---|---|---|---|---|---|"
for loss in $LOSSES; do
  cat >"$tmp/topo.json" <<JSON
{ "hosts": ["h0", "h1"], "rails": 1, "seed": 5, "defaults": { "delay_ms": $DELAY_MS, "loss": $loss } }
JSON
  for tp in $TRANSPORTS; do : >"$tmp/res.$tp"; done
  for rep in $(seq "$REPS"); do
    for tp in $TRANSPORTS; do
      # shellcheck disable=SC2086
      "$netlab" run "$tmp/topo.json" -- "$mpiexec" --netlab "$tmp/topo.json" -n 4 --transport "$tp" \
        --timeout 600 "$prog" $ARGS --csv >"$tmp/out" 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        grep '^mixed,' "$tmp/out" >>"$tmp/res.$tp"
      else
        echo "# loss $loss $tp rep $rep failed (rc $rc): $(tail -2 "$tmp/out" | tr '\n' ' ')" >&2
      fi
    done
  done
  for tp in $TRANSPORTS; do
    python3 - "$loss" "$tp" "$tmp/res.$tp" "$REPS" <<'P'
import statistics, sys
loss, tp, path, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [l.strip().split(",") for l in open(path) if l.startswith("mixed,")]
runs = len(rows) // 2 if rows else 0  # 2 pairs per run
if not rows:
    print(f"| {float(loss) * 100:g} % | {tp} | 0/{reps} | - | - | - | - | - |")
    sys.exit(0)
pp, rma, mix = (statistics.median(float(r[i]) for r in rows) for i in (2, 3, 4))
ratio = statistics.median(float(r[5]) for r in rows)
print(f"| {float(loss) * 100:g} % | {tp} | {runs}/{reps} | {pp:.4f} | {rma:.4f} | {pp + rma:.4f} | {mix:.4f} | {ratio:.3f} |")
P
  done
done
echo
echo "# medians over runs and pairs; each run's values are already medians of its --reps repetitions"
