#!/usr/bin/env bash
# timing_stats.sh MPIEXEC PROG TRANSPORT — runs tests/mpi/timing_stats.c with SCTPMPI_STATS=1 and
# SCTPMPI_TIMING=sample:1 and checks the "where the time went" lines: rank 0 counted unexpected
# waits, rank 1's rendezvous waited >= 50 ms for its CTS (rank 0 sleeps 100 ms), the samples are
# printed, and over sctp (our own engine, not usrsctp) every association line says no message was held by another stream.  A bad
# SCTPMPI_TIMING value must stop the job with a message naming it.
set -u
mpiexec=$1 prog=$2 tp=$3
out=$(SCTPMPI_STATS=1 SCTPMPI_TIMING=sample:1 "$mpiexec" -n 2 --transport "$tp" --timeout 120 "$prog" 2>&1)
rc=$?
echo "$out" | grep -E "No Errors|where the time went|timing sample" | head -20
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; echo "$out" | tail -20; exit 1; }
echo "$out" | grep -q " No Errors" || { echo "FAIL: no ' No Errors'"; exit 1; }
line0=$(echo "$out" | grep "^sctpmpi\[0\] where the time went (engine)")
line1=$(echo "$out" | grep "^sctpmpi\[1\] where the time went (engine)")
[ -n "$line0" ] && [ -n "$line1" ] || { echo "FAIL: engine timing lines missing"; exit 1; }
# the frames may reach the engine only when rank 0 enters MPI after its sleep (no progress while
# the application computes), so only the small message's wait behind the big receive is certain
n=$(echo "$line0" | sed -n 's/.*unexpected \([0-9]*\) msgs \([0-9.]*\) ms.*/\1 \2/p')
set -- $n
[ "${1:-0}" -ge 1 ] ||
  { echo "FAIL: rank 0 unexpected wait: '$n' (want >= 1 msg)"; exit 1; }
r=$(echo "$line1" | sed -n 's/.*rts->cts \([0-9]*\) \([0-9.]*\) ms.*/\1 \2/p')
set -- $r
[ "${1:-0}" -ge 1 ] && awk "BEGIN{exit !(${2:-0} >= 50)}" ||
  { echo "FAIL: rank 1 RTS->CTS: '$r' (want >= 1, >= 50 ms)"; exit 1; }
echo "$out" | grep -q "^sctpmpi\[0\] timing sample: unexpected peer 1 tag 1" ||
  { echo "FAIL: no unexpected-wait sample"; exit 1; }
# the association lines come from our own SCTP engine; the usrsctp backend has no such counters
if [ "$tp" = sctp ] && [ "${SCTPMPI_SCTP_BACKEND:-native}" != usrsctp ]; then
  a=$(echo "$out" | grep -c "sctpn: rank [0-9]* assoc [0-9]* where the time went: sent")
  [ "$a" -ge 2 ] || { echo "FAIL: $a SCTP association timing lines (want >= 2)"; exit 1; }
  echo "$out" | grep "where the time went: sent" | grep -v "held by another stream 0," &&
    { echo "FAIL: a message was held by another stream"; exit 1; }
fi
bad=$(SCTPMPI_TIMING=bogus "$mpiexec" -n 2 --transport "$tp" --timeout 60 "$prog" 2>&1)
[ $? -ne 0 ] || { echo "FAIL: SCTPMPI_TIMING=bogus was accepted"; exit 1; }
echo "$bad" | grep -q "SCTPMPI_TIMING=bogus" || { echo "FAIL: no message naming the bad value"; echo "$bad" | tail -5; exit 1; }
echo "timing_stats ($tp): unexpected $n, rts->cts $r; bad value refused"
