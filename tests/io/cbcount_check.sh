#!/bin/sh
# cbcount_check.sh MPIEXEC NP TRANSPORT PROG — runs io_cbcount with SCTPMPI_STATS=1 and checks
# that the collectively buffered file took at most 4 write calls in all (one aggregator, one
# window) while the unbuffered one took one per 16-byte piece (at least 1000).
out=$(SCTPMPI_STATS=1 "$1" -n "$2" --transport "$3" --timeout 120 "$4" 2>&1)
rc=$?
echo "$out" | grep -v "stats:\|where the time went\|transport\|assoc" | head -40
[ "$rc" -eq 0 ] || { echo "sm-test FAILED: launcher exit status $rc"; exit 1; }
sum() { echo "$out" | grep "io: .*/$1: " | sed 's/.*: \([0-9]*\) write calls.*/\1/' | awk '{s+=$1} END {print s+0}'; }
cb=$(sum cb)
nocb=$(sum nocb)
echo "write calls: collective buffering $cb, without $nocb"
if [ "$cb" -ge 1 ] && [ "$cb" -le 4 ] && [ "$nocb" -ge 1000 ]; then
  echo "sm-test cbcount: PASSED"
else
  echo "sm-test FAILED: expected 1-4 buffered and >= 1000 unbuffered write calls"
fi
