#!/bin/sh
# lossy_farm.sh MPIEXEC FARM TOPO — the buffered farm (7 workers, 12 KB tasks of 23.7 ms) over
# links with 2 % loss and 40 ms one way: the farm checks every result itself; its virtual run
# time is printed beside the latency-hiding model's and must lie within [0.9, 1.5] x the model
# T = RTT + n T(task) + max((n-1)(RTT - T(task)), 0), n = 20 tasks per worker, RTT = 80 ms (the
# topology's 2 x 40 ms; the farm's own model column uses the RTT it measured, which a loss in
# its few probe exchanges can double); a loss costs extra time.
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
awk -v s="$secs" -v m="$model" 'BEGIN { exit !(s >= 0.9 * m && s <= 1.5 * m) }' ||
  { echo "sim-test FAILED: $secs s is not within [0.9, 1.5] x the model's $model s"; exit 1; }
echo "sim-test lossy_farm: PASSED"
