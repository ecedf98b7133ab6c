#!/usr/bin/env bash
# mh_alltoall.sh BUILD [OUT] — multihoming experiment (b), 004 Fig. 3 ("Pallas Alltoall n=4, MTU
# 1500"): MPI_Alltoall latency by message size (bytes per peer, as IMB counts them) with NP ranks,
# one per netlab host (004: four nodes, one process each), every host with 2 rails of 1 Gbit/s
# NICs, MTU 1500, DELAY_MS each way; bench/coll/coll_lat --ops alltoall (every call's data
# checked; latency = slowest rank's mean per call, median of its repetitions), for the contenders
# of mh_contenders.sh, interleaved, REPS runs each.  Writes OUT/alltoall.csv
# (contender,rep,size,latency_us,status,rail0_bytes,rail1_bytes,load1) and OUT/logs/.
# Environment: SIZES (1K,4K,16K,64K,128K,256K,1M,4M), NP (4), HOSTS (NP), REPS (3),
# CONTENDERS (all), CREPS (coll_lat repetitions, 5), DELAY_MS (0.1), RATE (1000), TMO (300 s).
set -u
B=$(cd "${1:?usage: mh_alltoall.sh BUILD [OUT]}" && pwd)
OUT=${2:-/tmp/mh_alltoall}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/mh_contenders.sh"
SIZES=${SIZES:-1K,4K,16K,64K,128K,256K,1M,4M}
NP=${NP:-4} REPS=${REPS:-3} CONTENDERS=${CONTENDERS:-$MH_ALL} TMO=${TMO:-300}
HOSTS=${HOSTS:-$NP}
[ "$(id -u)" = 0 ] || { echo "needs root (netlab)"; exit 77; }
cat >"$OUT/topo.json" <<J
{ "hosts": $HOSTS, "rails": 2, "mtu": 1500, "defaults": { "delay_ms": ${DELAY_MS:-0.1} },
  "nic": { "rate_mbit": ${RATE:-1000} } }
J
mh_start "$OUT/topo.json" || exit 1
echo "contender,rep,size,latency_us,status,rail0_bytes,rail1_bytes,load1" >"$OUT/alltoall.csv"
: >"$OUT/skipped.txt"
run_list=""
for c in $CONTENDERS; do
  if why=$(mh_supported "$c"); then run_list="$run_list $c"; else echo "$c: $why" | tee -a "$OUT/skipped.txt"; fi
done
# result lines, one per size: a job that hangs after them is ended (mh_measure)
MH_DONE_RE='^coll,alltoall,' MH_DONE_N=$(($(tr -cd , <<<"$SIZES" | wc -c) + 1))
for rep in $(seq "$REPS"); do
  for c in $run_list; do
    mh_measure "$OUT/logs/$c.$rep" "$c" "$NP" "$TMO" coll_lat --csv --ops alltoall --sizes "$SIZES" \
      --reps "${CREPS:-5}"
    echo "$(date +%T) alltoall $c run $rep: $MH_STATUS, rail0 $MH_R0 B, rail1 $MH_R1 B, load $MH_LOAD"
    # coll_lat --csv rows: coll,alltoall,size_bytes,iters,latency_us
    awk -F, -v c="$c" -v r="$rep" -v st="$MH_STATUS" -v a="$MH_R0" -v b="$MH_R1" -v l="$MH_LOAD" \
      '$1 == "coll" && $2 == "alltoall" { print c "," r "," $3 "," $5 "," st "," a "," b "," l; n++ }
       END { if (!n) print c "," r ",,," st "," a "," b "," l }' "$OUT/logs/$c.$rep.out" >>"$OUT/alltoall.csv"
  done
done
