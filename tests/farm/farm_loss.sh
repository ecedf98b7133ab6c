#!/usr/bin/env bash
# farm_loss.sh MPIEXEC PROG — the farm test's heavy configuration ("loss": 600 tasks of up to
# 16 KB each way, in order and with the overtaking assertion) over SCTP with 2 % of the outgoing
# DATA-bearing packets dropped by the native engine's test hook (SCTPMPI_SCTP_TEST_DROP).  Every
# result must still be exact (" No Errors"), and the engine's statistics must show that packets
# were actually retransmitted (so the drop was in effect).
set -u
out=$(SCTPMPI_SCTP_TEST_DROP=2 SCTPMPI_STATS=1 "$1" -n 4 --transport sctp --timeout 200 "$2" loss 2>&1)
rc=$?
echo "$out" | grep -v "^\[rank\|^sctpmpi\[.\] sctp" | head -20
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
echo "$out" | grep -q "^ No Errors" || { echo "FAIL: no ' No Errors'"; exit 1; }
rt=$(echo "$out" | sed -n 's/.*retransmitted \([0-9]*\),.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$rt" -gt 0 ] || { echo "FAIL: no retransmission in the statistics: the drop was not in effect"; exit 1; }
echo "farm exact under 2% loss: $rt chunks retransmitted"
