#!/usr/bin/env bash
# overtake.sh MPIEXEC PROG — runs tests/mpi/overtake.c over SCTP with 10 streams and 2% of the
# packets dropped (SCTPMPI_SCTP_TEST_DROP), and checks that tag-specific receives really were
# matched ahead of missing messages ("early-matched" > 0 in rank 1's statistics).
set -u
out=$(SCTPMPI_SCTP_TEST_DROP=2 SCTPMPI_STATS=1 SCTPMPI_SCTP_STREAMS=10 \
      "$1" -n 2 --transport sctp --timeout 280 "$2" 2>&1)
rc=$?
echo "$out" | grep -v "^sctpmpi\[.\] sctp" | head -40
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
n=$(echo "$out" | sed -n 's/^sctpmpi\[1\] stats:.*early-matched \([0-9]*\).*/\1/p')
[ "${n:-0}" -gt 0 ] || { echo "FAIL: no receive completed ahead of a missing message (early-matched=${n:-none})"; exit 1; }
echo "early-matched on rank 1: $n"
