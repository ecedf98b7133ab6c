#!/usr/bin/env bash
# mh_app.sh BUILD [OUT] — multihoming experiment (d), thesis Table 6.2: a compute + communicate
# application (bench/multihome/mh_stencil, 2-D Jacobi, fixed work) on 2 netlab hosts x 2 rails
# (1 Gbit/s NICs, 0.1 ms each way), with rail 0 failing for good FAIL_AT seconds after the job
# was started (netlab down h0-h1@0, both directions; brought up again after the job), and the
# same run without the failure.  SCTP contenders use SCTPMPI_SCTP_FAILOVER=lan (thesis Table
# 6.1).  Contenders (mh_contenders.sh) interleaved, each REPS times with and without the failure.
# Writes OUT/app.csv (contender,failure,rep,seconds,median_iter_ms,longest_iter_ms,longest_at_s,
# checksum,t0_epoch,fail_epoch,status,rail0_bytes,rail1_bytes,load1; fail_epoch = system-clock
# time of the `netlab down`, t0_epoch = the program's start of iterations) and OUT/logs/: the
# jobs' output (SCTPMPI_STATS per path) and per-iteration traces (*.trace: start_s ms).
# Environment: CONTENDERS (sctpmh sctpcmt sctpstripe tcpstripe mptcp), REPS (3), ITERS (2000),
# ROWS (256), COLS (4096), FAIL_AT (2.5 s), TMO (120 s: a job that does not finish is recorded
# as "timeout", not waited for).  Needs root.
set -u
B=$(cd "${1:?usage: mh_app.sh BUILD [OUT]}" && pwd)
OUT=${2:-/tmp/mh_app}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/mh_contenders.sh"
CONTENDERS=${CONTENDERS:-sctpmh sctpcmt sctpstripe tcpstripe mptcp}
REPS=${REPS:-3} TMO=${TMO:-120} FAIL_AT=${FAIL_AT:-2.5}
export SCTPMPI_SCTP_FAILOVER=lan SCTPMPI_SCTP_DEBUG=1
[ "$(id -u)" = 0 ] || { echo "needs root (netlab)"; exit 77; }
cat >"$OUT/topo.json" <<J
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.1 },
  "nic": { "rate_mbit": 1000 } }
J
mh_start "$OUT/topo.json" || exit 1
echo "contender,failure,rep,seconds,median_iter_ms,longest_iter_ms,longest_at_s,checksum,t0_epoch,fail_epoch,status,rail0_bytes,rail1_bytes,load1" >"$OUT/app.csv"
: >"$OUT/skipped.txt"
run_list=""
for c in $CONTENDERS; do
  if why=$(mh_supported "$c"); then run_list="$run_list $c"; else echo "$c: $why" | tee -a "$OUT/skipped.txt"; fi
done
for rep in $(seq "$REPS"); do
  for c in $run_list; do
    for fail in 0 1; do
      killer="" log=$OUT/logs/$c.fail$fail.$rep
      rm -f "$log.down"
      if [ $fail = 1 ]; then
        (sleep "$FAIL_AT" && date +%s.%N >"$log.down" && "$MH_NETLAB" down --run "$MH_RUN" 'h0-h1@0' >/dev/null) &
        killer=$!
      fi
      mh_measure "$log" "$c" 2 "$TMO" mh_stencil --iters "${ITERS:-2000}" \
        --rows "${ROWS:-256}" --cols "${COLS:-4096}" --trace "$log.trace"
      [ -n "$killer" ] && wait "$killer"
      "$MH_NETLAB" up --run "$MH_RUN" 'h0-h1@0' >/dev/null
      row=$(grep -m1 '^stencil,' "$log.out" | cut -d, -f6-11)
      [ -n "$row" ] || row=",,,,,"
      echo "$c,$fail,$rep,$row,$(cat "$log.down" 2>/dev/null),$MH_STATUS,$MH_R0,$MH_R1,$MH_LOAD" >>"$OUT/app.csv"
      echo "$(date +%T) app $c failure=$fail run $rep: $MH_STATUS ($row), rail0 $MH_R0 B, rail1 $MH_R1 B, load $MH_LOAD"
      sleep 1 # let the link state settle (heartbeats find rail 0 again) before the next job
    done
  done
done
