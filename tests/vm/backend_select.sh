#!/bin/bash
# backend_select.sh MPIEXEC PROG — SCTPMPI_SCTP_BACKEND=auto and =kernel on this host, no VM:
# auto must run the job (over the kernel's SCTP where it has one, else over our engine); kernel
# must run it where the kernel has SCTP and otherwise fail quickly with a clear message.
mpiexec=$1 prog=$2
has_sctp=$(python3 -c 'import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 132).close(); print(1)
except OSError: print(0)')
out=$(SCTPMPI_SCTP_BACKEND=auto "$mpiexec" -n 2 --transport sctp --timeout 60 "$prog" 2>&1)
grep -q " No Errors" <<<"$out" || { echo "FAIL: auto did not run the job:"; echo "$out" | tail; exit 1; }
out=$(SCTPMPI_SCTP_BACKEND=kernel "$mpiexec" -n 2 --transport sctp --timeout 60 "$prog" 2>&1)
rc=$?
if [ "$has_sctp" = 1 ]; then
  grep -q " No Errors" <<<"$out" || { echo "FAIL: kernel backend failed:"; echo "$out" | tail; exit 1; }
  echo "PASS: auto and kernel ran the job over this kernel's SCTP"
else
  [ $rc != 0 ] && [ $rc != 124 ] || { echo "FAIL: kernel backend without kernel SCTP: exit $rc"; exit 1; }
  grep -q "no kernel SCTP here" <<<"$out" || { echo "FAIL: no clear message:"; echo "$out" | tail; exit 1; }
  echo "PASS: no kernel SCTP here: auto fell back to our engine, kernel failed with: $(grep -m1 -o 'no kernel SCTP here[^;]*' <<<"$out")"
fi
