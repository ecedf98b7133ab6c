#!/usr/bin/env bash
# no_any_tag.sh MPIEXEC PROG — runs tests/mpi/overtake.c ("plain" and "assert" modes) over SCTP with 10 streams and 2% of
# the packets dropped, once on a communicator asserting mpi_assert_no_any_tag and once on a plain
# one.  Both must be correct ("No Errors"); the plain run must show receives matched ahead of
# missing messages (the ordering rule's bookkeeping at work: early-matched > 0 and an early-arrival
# peak of at least 100 on rank 1; seen 3956-14148) and the asserting run none at all (that
# bookkeeping skipped).  The statistics are per process, so they would also count
# MPI_COMM_WORLD's traffic around the test, which keeps the rule; with two ranks that is one
# collective message at a time each way, which cannot overtake another.  A run that shows early
# arrivals in the asserting mode means messages of the asserting communicator went through the
# rule: the receiver must go by the sender's RELAXED flag (docs/design.md, "Ordering"), also for
# messages that arrive before it has finished creating the communicator.
set -u
run() {
    SCTPMPI_SCTP_TEST_DROP=2 SCTPMPI_STATS=1 SCTPMPI_SCTP_STREAMS=10 \
        "$1" -n 2 --transport sctp --timeout 200 "$2" $3 2>&1
}
for mode in plain assert; do
    out=$(run "$1" "$2" $mode)
    rc=$?
    echo "== $mode"
    echo "$out" | grep -v "^\[rank\|^sctpmpi\[.\] sctp" | head -20
    [ $rc -eq 0 ] || { echo "FAIL: $mode run exit status $rc"; exit 1; }
    echo "$out" | grep -q "^ No Errors" || { echo "FAIL: $mode run printed no ' No Errors'"; exit 1; }
    n=$(echo "$out" | sed -n 's/^sctpmpi\[1\] stats:.*early-matched \([0-9]*\).*/\1/p')
    p=$(echo "$out" | sed -n 's/^sctpmpi\[1\] stats:.*early-arrival peak \([0-9]*\).*/\1/p')
    [ -n "$n" ] && [ -n "$p" ] || { echo "FAIL: no statistics line from rank 1"; exit 1; }
    if [ $mode = plain ]; then
        [ "$n" -gt 0 ] || { echo "FAIL: plain run: no early match, so the drop made no reordering to skip"; exit 1; }
        [ "$p" -ge 100 ] || { echo "FAIL: plain run: early-arrival peak $p, too few to tell the modes apart"; exit 1; }
    else
        [ "$n" -eq 0 ] && [ "$p" -eq 0 ] ||
            { echo "FAIL: asserting run tracked early arrivals (early-matched $n, peak $p)"; exit 1; }
    fi
    echo "$mode: early-matched $n, early-arrival peak $p"
done
echo " No Errors"
