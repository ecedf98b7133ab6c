#!/bin/sh
# single_regress.sh BASE_BUILD NEW_BUILD [REPS] — the no-regression check of the global lock:
# loopback 0-byte and 16 KiB ping-pong latency (bench/p2p/pingpong, a MPI_THREAD_SINGLE
# program) of two builds, interleaved, under nice -n -15, over tcp and sctp; prints every run
# and the medians.
base=$1 new=$2 reps=${3:-9}
out=$(mktemp)
for r in $(seq "$reps"); do
  for tp in tcp sctp; do
    for which in base new; do
      b=$base; [ "$which" = new ] && b=$new
      timeout 120 nice -n -15 "$b/tools/mpiexec/mpiexec" -n 2 --transport "$tp" \
        "$b/bench/p2p/pingpong" --csv --sizes 0,16384 --iters 3000 2>/dev/null |
        awk -F, -v w="$which" -v tp="$tp" '$1=="pingpong"{print w, tp, $2, $4}' >>"$out"
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for tp in tcp sctp; do
  for size in 0 16384; do
    mb=$(awk -v tp="$tp" -v s="$size" '$1=="base"&&$2==tp&&$3==s{print $4}' "$out" | sort -n |
      awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}')
    mn=$(awk -v tp="$tp" -v s="$size" '$1=="new"&&$2==tp&&$3==s{print $4}' "$out" | sort -n |
      awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}')
    echo "$tp ${size} B: base ${mb} us, new ${mn} us, new/base $(echo "$mn $mb" | awk '{printf "%.3f", $1/$2}')"
  done
done
rm -f "$out"
