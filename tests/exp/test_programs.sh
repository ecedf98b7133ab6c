#!/usr/bin/env bash
# test_programs.sh BUILD TRANSPORT — the papers' experiment programs (bench/exp: pingpong,
# bpfarm, farm) at a tiny size over our TRANSPORT inside a 4-host netlab whose links have 5 ms
# one-way delay and 1% loss: each must exit 0 after printing its result row (the programs check
# every byte, every task exactly once and the workers' counts themselves and MPI_Abort
# otherwise), the links must have carried the traffic and dropped some of it, and the farm's
# round trip must show the emulated delay.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
build=$1 transport=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: no ip netns"; exit 77; }
mpiexec=$build/tools/mpiexec/mpiexec netlab=$build/tools/netlab/netlab bin=$build/bench/exp
for f in "$mpiexec" "$netlab" "$bin/pingpong" "$bin/bpfarm" "$bin/farm"; do
  [ -x "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
tmp=$(mktemp -d /tmp/sm-exp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1", "h2", "h3"], "rails": 1, "seed": 3, "defaults": { "delay_ms": 5, "loss": 0.01 } }
JSON
# inside `netlab run`: one job per program, then the counters
cat >"$tmp/jobs.sh" <<JOBS
set -e
run() { '$mpiexec' --netlab '$tmp/topo.json' --transport $transport --timeout 120 "\$@"; }
run -n 2 '$bin/pingpong' --sizes 1k,30k,70k --iters 6 --warmup 1
run -n 4 '$bin/bpfarm' --tasks 40 --size 20k --fanout 2 --outstanding 3
run -n 4 '$bin/farm' --tasks 24 --size 12k --maxreqs 2 --task-ms 2
'$netlab' stats
JOBS
"$netlab" run "$tmp/topo.json" -- bash "$tmp/jobs.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { tail -20 "$tmp/err"; echo "FAIL: a job exited with $rc"; exit 1; }
for p in pingpong bpfarm farm; do
  grep -q "^$p," "$tmp/out" || { echo "FAIL: $p printed no result row"; exit 1; }
done
[ "$(grep -c '^pingpong,' "$tmp/out")" -eq 3 ] || { echo "FAIL: pingpong must print one row per size"; exit 1; }
# farm row: bench,tasks,size,k,maxreqs,workers,task_ms,done,seconds,rtt_ms,... (RTT measured before the farm)
rtt=$(awk -F, '/^farm,/ { print $10 }' "$tmp/out")
awk -v r="$rtt" 'BEGIN { exit !(r >= 9.5) }' ||
  { echo "FAIL: farm RTT $rtt ms is below 2 x 5 ms (one-way delay each way): the delay was not crossed"; exit 1; }
sum() { awk -v k="$1" '/^link / { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { sub(k "=", "", $i); s += $i } } END { print s + 0 }' "$tmp/out"; }
bytes=$(sum fwd_bytes) lost=$(sum drop_loss)
[ "$bytes" -gt 2000000 ] || { echo "FAIL: only $bytes bytes crossed the emulated links"; exit 1; }
[ "$lost" -gt 0 ] || { echo "FAIL: the 1% loss dropped nothing"; exit 1; }
echo "links carried $bytes bytes, dropped $lost packets"
echo "exp programs passed over $transport"
