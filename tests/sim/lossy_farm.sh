#!/bin/sh
# lossy_farm.sh MPIEXEC FARM TOPO — the buffered farm (7 workers, 12 KB tasks of 23.7 ms) over
# links with 2 % loss and 40 ms one way: the farm checks every result itself; its virtual run
# time is printed beside the latency-hiding model's
# T = RTT + n T(task) + max((n-1)(RTT - T(task)), 0), n = 20 tasks per worker, RTT = 80 ms (the
# topology's 2 x 40 ms; the farm's own model column uses the RTT it measured, which a loss in
# its few probe exchanges can double). The model is for one request per worker; this farm keeps
# 3 in flight and can beat it, so the run time must lie between the hard lower bound
# n T(task) + RTT (every worker computes its tasks, and the first one needs a round trip) and
# 1.5 x the model (losses cost extra time, but not that much).
mpiexec=$1 farm=$2 topo=$3
out=$("$mpiexec" --sim "$topo" -n 8 --timeout 120 "$farm" --tasks 140 --size 12288 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "sim-test FAILED: exit status $rc"; exit 1; }
row=$(echo "$out" | grep '^farm,')
[ -n "$row" ] || { echo "sim-test FAILED: no farm row"; exit 1; }
secs=$(echo "$row" | cut -d, -f9)
model=$(awk 'BEGIN { r = 0.080; t = 0.0237; n = 20; i = (n - 1) * (r - t); if (i < 0) i = 0;
                     printf "%.4f", r + n * t + i }')
echo "virtual run time $secs s, model $model s (farm's own model column: $(echo "$row" | cut -d, -f12) s)"
low=$(awk 'BEGIN { printf "%.4f", 20 * 0.0237 + 0.080 }')
awk -v s="$secs" -v m="$model" -v l="$low" 'BEGIN { exit !(s >= l && s <= 1.5 * m) }' ||
  { echo "sim-test FAILED: $secs s is not within [$low s, 1.5 x the model's $model s]"; exit 1; }
echo "sim-test lossy_farm: PASSED"
