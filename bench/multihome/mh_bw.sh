#!/usr/bin/env bash
# mh_bw.sh BUILD [OUT] — multihoming experiment (a), 004 Fig. 2: osu_bw-style bandwidth by message
# size between 2 netlab hosts x 2 rails, every host interface a 1 Gbit/s NIC, DELAY_MS each way,
# for the contenders of mh_contenders.sh (bench/p2p/bw, window WINDOW, every message checked).
# Contenders run interleaved, REPS times each.  Writes OUT/bw.csv (one row per contender, run
# and size: contender,rep,size,mb_per_s,status,rail0_bytes,rail1_bytes,load1; the rail bytes
# are the whole job's, from netlab's link counters) and the jobs' logs under OUT/logs/.
# Environment: SIZES (4096,...,4194304), REPS (3), CONTENDERS (all), WINDOW (64), ITERS (10),
# DELAY_MS (0.1), RATE (1000 Mbit/s), TMO (300 s per job), LOSS1 (loss probability on every
# rail-1 link, e.g. 0.01; default none: the CMT-under-loss case).  Needs root.
set -u
B=$(cd "${1:?usage: mh_bw.sh BUILD [OUT]}" && pwd)
OUT=${2:-/tmp/mh_bw}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/mh_contenders.sh"
SIZES=${SIZES:-4096,16384,65536,262144,1048576,4194304}
REPS=${REPS:-3} CONTENDERS=${CONTENDERS:-$MH_ALL} TMO=${TMO:-300}
[ "$(id -u)" = 0 ] || { echo "needs root (netlab)"; exit 77; }
cat >"$OUT/topo.json" <<J
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": ${DELAY_MS:-0.1} },
  "nic": { "rate_mbit": ${RATE:-1000} } }
J
mh_start "$OUT/topo.json" || exit 1
if [ -n "${LOSS1:-}" ]; then
  "$MH_NETLAB" set --run "$MH_RUN" '*@1' loss="$LOSS1" || exit 1
fi
echo "contender,rep,size,mb_per_s,status,rail0_bytes,rail1_bytes,load1" >"$OUT/bw.csv"
: >"$OUT/skipped.txt"
run_list=""
for c in $CONTENDERS; do
  if why=$(mh_supported "$c"); then run_list="$run_list $c"; else echo "$c: $why" | tee -a "$OUT/skipped.txt"; fi
done
# result lines, one per size: a job that hangs after them is ended (mh_measure)
MH_DONE_RE='^bw,[0-9]' MH_DONE_N=$(($(tr -cd , <<<"$SIZES" | wc -c) + 1))
for rep in $(seq "$REPS"); do
  for c in $run_list; do
    mh_measure "$OUT/logs/$c.$rep" "$c" 2 "$TMO" bw --csv --sizes "$SIZES" --window "${WINDOW:-64}" \
      --iters "${ITERS:-10}" --skip 2 --iters-large "${ITERS:-10}" --skip-large 2
    echo "$(date +%T) bw $c run $rep: $MH_STATUS, rail0 $MH_R0 B, rail1 $MH_R1 B, load $MH_LOAD"
    # bw --csv rows: bw,size_bytes,iters,window,mb_per_s,cpu_s_per_gb
    awk -F, -v c="$c" -v r="$rep" -v st="$MH_STATUS" -v a="$MH_R0" -v b="$MH_R1" -v l="$MH_LOAD" \
      'NF >= 5 && $1 == "bw" && $2 ~ /^[0-9]+$/ { print c "," r "," $2 "," $5 "," st "," a "," b "," l; n++ }
       END { if (!n) print c "," r ",,," st "," a "," b "," l }' "$OUT/logs/$c.$rep.out" >>"$OUT/bw.csv"
  done
done
