#!/usr/bin/env bash
# mh_failover.sh BUILD [OUT] — multihoming experiment (c), thesis Figs. 6.1-6.3: failover timeline on
# netlab, 2 hosts x 2 rails, 1 Gbit/s NICs, 0.1 ms each way; rail 0 down at T1 and up at T2,
# rail 1 down at T3 (EVENTS="T1 T2 T3", default "5 15 25", seconds after the network came up;
# the job starts ~0.3 s later) while bench/multihome/mh_timeline streams 64 KiB MPI_Sends for DUR
# seconds (default 32) and counts Mbit/s per 100 ms.  One run per configuration of CONFIGS
# (default "wan-cmtoff wan-cmton lan-cmtoff lan-cmton": SCTPMPI_SCTP_FAILOVER x SCTPMPI_SCTP_CMT,
# where auto is the transport's defaults, no preset;
# a suffix -pfN adds SCTPMPI_SCTP_PF_THRESHOLD=N, e.g. wan-cmton-pf0 for the thesis's CMT-PF),
# REPS runs each (default 1).  Writes OUT/failover.csv (config,rep,t_s,mbit_per_s),
# OUT/failover_runs.csv (config,rep,longest_stall_s,stall_from_s,status,rail0_bytes,rail1_bytes,
# load1; status ok, stalled-to-end = the stream never finished and mh_timeline gave up 10 s after
# DUR, fail(rc=N)) and the logs (with SCTPMPI_STATS per-path counters) as OUT/logs/CONFIG.REP.txt.
# The backend is SCTPMPI_SCTP_BACKEND's (default: native).  Needs root.
set -u
B=$(cd "${1:?usage: mh_failover.sh BUILD [OUT]}" && pwd)
OUT=${2:-/tmp/mh_failover}
mkdir -p "$OUT/logs" && OUT=$(cd "$OUT" && pwd)
DUR=${DUR:-32} REPS=${REPS:-1}
CONFIGS=${CONFIGS:-wan-cmtoff wan-cmton lan-cmtoff lan-cmton}
read -r T1 T2 T3 <<<"${EVENTS:-5 15 25}"
[ "$(id -u)" = 0 ] || { echo "needs root (netlab)"; exit 77; }
NETLAB=$B/tools/netlab/netlab
cat >"$OUT/topo.json" <<J
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.1 },
  "nic": { "rate_mbit": 1000 },
  "events": [ {"at": $T1, "do": "down h0-h1@0"}, {"at": $T2, "do": "up h0-h1@0"},
              {"at": $T3, "do": "down h0-h1@1"} ] }
J
echo "config,rep,t_s,mbit_per_s" >"$OUT/failover.csv"
echo "config,rep,longest_stall_s,stall_from_s,status,rail0_bytes,rail1_bytes,load1" >"$OUT/failover_runs.csv"
for rep in $(seq "$REPS"); do
  for cfg in $CONFIGS; do
    fo=${cfg%%-*} cmt=${cfg#*-cmt} pf=()
    cmt=${cmt%%-*}
    [[ $cfg == *-pf* ]] && pf=(SCTPMPI_SCTP_PF_THRESHOLD="${cfg##*-pf}")
    log=$OUT/logs/$cfg.$rep.txt
    timeout $((DUR + 90)) "$NETLAB" run "$OUT/topo.json" -- sh -c "
      env SCTPMPI_SCTP_FAILOVER=$fo SCTPMPI_SCTP_CMT=$cmt ${pf[*]} SCTPMPI_STATS=1 SCTPMPI_SCTP_DEBUG=1 \
        '$B/tools/mpiexec/mpiexec' --netlab '$OUT/topo.json' -n 2 --transport sctp \
        --timeout $((DUR + 60)) '$B/bench/multihome/mh_timeline' $DUR
      echo \"mpiexec status \$?\"; '$NETLAB' stats" >"$log" 2>&1
    st=$(sed -n 's/^mpiexec status //p' "$log")
    case $st in 0) st=ok ;; "") st="no-status" ;; *) st="fail(rc=$st)" ;; esac
    grep -q "^# unfinished" "$log" && st="stalled-to-end"
    rb() { awk -v r="rail=$1" '$1 == "link" && $2 == r { for (i = 3; i <= NF; i++)
      if ($i ~ /^fwd_bytes=/) { sub("fwd_bytes=", "", $i); s += $i } } END { printf "%.0f", s }' "$log"; }
    awk -v c="$cfg" -v r="$rep" 'NF == 2 && $1 ~ /^[0-9.]+$/ { print c "," r "," $1 "," $2 }' "$log" >>"$OUT/failover.csv"
    stall=$(sed -n 's/^# longest stall \([0-9.]*\) s from t=\([0-9.]*\) s/\1,\2/p' "$log")
    echo "$cfg,$rep,${stall:-,},$st,$(rb 0),$(rb 1),$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/failover_runs.csv"
    echo "$(date +%T) failover $cfg run $rep: $st, longest stall ${stall:-?} (s,from)"
  done
done
