#!/usr/bin/env bash
# no_any_tag.sh MPIEXEC PROG — runs tests/mpi/overtake.c ("plain" and "assert" modes) over SCTP with 10 streams and 2% of
# the packets dropped, once on a communicator asserting mpi_assert_no_any_tag and once on a plain
# one.  Both must be correct ("No Errors"); the plain run must show receives matched ahead of
# missing messages (early-matched > 0 on rank 1).  The asserting communicator keeps the ordering
# rule (docs/design.md, "Ordering"); the test checks its traffic stays in order under drop.
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
    fi
    echo "$mode: early-matched $n, early-arrival peak $p"
done
echo " No Errors"
