#!/bin/sh
# model_bound.sh MPIEXEC FARM — the buffered farm (7 workers, 70 tasks of 12 KB and 23.7 ms)
# against 001's latency-hiding model T = RTT + n T(task) + max((n-1)(RTT - T(task)), 0)
# (n = 10 tasks per worker, RTT = 2 x the one-way delay), computation not charged
# (--sim-cpu-scale 0: the tasks' sleeps are exact, so each result is one deterministic number):
#   LAN, no loss, MAXREQS 3:        the model is tight: within 3 % of it;
#   20 ms one way, no loss, MAXREQS 1: a worker waits an RTT per task, as the model assumes:
#                                   within 3 %;
#   20 ms one way, 2 % loss, MAXREQS 1: the model is a lower bound (losses only add time):
#                                   at least the model, at most 3 times it.
mpiexec=$1 farm=$2
dir=$(mktemp -d /tmp/sim-model-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
for cell in "0 0 3 tight" "20 0 1 tight" "20 0.02 1 bound"; do
  set -- $cell
  delay=$1 loss=$2 maxreqs=$3 kind=$4
  printf '{"hosts": ["h0","h1","h2","h3","h4","h5","h6","h7"], "rails": 1, "mtu": 1500, "seed": 1,
 "defaults": {"delay_ms": %s, "loss": %s}, "nic": {"rate_mbit": 1000}}\n' "$delay" "$loss" > "$dir/t.json"
  out=$("$mpiexec" --sim "$dir/t.json" --sim-cpu-scale 0 --sim-seed 3 -n 8 --timeout 120 "$farm" \
        --tasks 70 --size 12288 --k 1 --maxreqs "$maxreqs" --task-ms 23.7 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 0 ] || { echo "sim-test FAILED: $delay ms $loss: exit status $rc"; exit 1; }
  secs=$(echo "$out" | grep '^farm,' | cut -d, -f9)
  [ -n "$secs" ] || { echo "sim-test FAILED: $delay ms $loss: no farm row"; exit 1; }
  model=$(awk -v d="$delay" 'BEGIN { r = 2 * d / 1000; t = 0.0237; n = 10; i = (n - 1) * (r - t);
                                     if (i < 0) i = 0; printf "%.4f", r + n * t + i }')
  if [ "$kind" = tight ]; then lo=0.97 hi=1.03; else lo=1.0 hi=3.0; fi
  if awk -v s="$secs" -v m="$model" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(s >= lo * m && s <= hi * m) }'; then
    echo "cell $delay ms, loss $loss, MAXREQS $maxreqs: $secs s, model $model s ($kind: [$lo, $hi] x model) ok"
  else
    echo "sim-test FAILED: cell $delay ms, loss $loss, MAXREQS $maxreqs: $secs s not within [$lo, $hi] x the model's $model s"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "sim-test model_bound: PASSED"
