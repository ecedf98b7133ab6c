#!/bin/sh
# stripe_check.sh MPIEXEC NP PROG [ARGS...] — runs an MPI job over striped rails (the caller
# sets SCTPMPI_TCP_STRIPE=1 or SCTPMPI_SCTP_STRIPE=1, and SCTPMPI_ADDRS; STRIPE_TRANSPORT=tcp
# (default) or sctp) with SCTPMPI_STATS=1, passes its output through, and checks from rank 0's
# statistics that every rail to rank 1 sent at least STRIPE_MIN_RAIL_BYTES (default 1 MiB):
# striping really used every rail.
# Prints "sm-test FAILED: ..." (caught by the test's FAIL_REGULAR_EXPRESSION) otherwise.
mpiexec=$1 np=$2
shift 2
transport=${STRIPE_TRANSPORT:-tcp}
out=$(mktemp)
SCTPMPI_STATS=1 "$mpiexec" -n "$np" --transport "$transport" --timeout 120 "$@" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -ne 0 ] && echo "sm-test FAILED: launcher exit status $rc"
rails=${STRIPE_RAILS:-2}
min=${STRIPE_MIN_RAIL_BYTES:-1048576}
r=0
while [ "$r" -lt "$rails" ]; do
  if [ "$transport" = sctp ]; then
    b=$(sed -n "s/^\[rank 0\] sctpn: rank 1 rail $r: sent [0-9]* frames \([0-9]*\) bytes.*/\1/p" "$out")
  else
    b=$(sed -n "s/^sctpmpi\[0\] tcp peer 1 rail $r: sent [0-9]* frames \([0-9]*\) bytes.*/\1/p" "$out")
  fi
  echo "sm-test stripe: rank 0 -> rank 1 rail $r sent ${b:-0} bytes"
  if [ -z "$b" ] || [ "$b" -lt "$min" ]; then
    echo "sm-test FAILED: rail $r carried ${b:-0} bytes (< $min)"
  fi
  r=$((r + 1))
done
rm -f "$out"
exit "$rc"
