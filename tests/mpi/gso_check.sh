#!/bin/sh
# gso_check.sh MPIEXEC PROG [ARGS...] — runs PROG on 2 ranks over the native SCTP transport
# with SCTPMPI_SCTP_MTU=1500 and SCTPMPI_STATS=1, passes its output through, and checks from
# the statistics that runs of packets went out as UDP GSO super-datagrams and that coalesced
# (GRO) receives were split back into packets (PROG checks the data itself: " No Errors").
# Prints "sm-test FAILED: ..." otherwise, "sm-test SKIPPED: ..." when the kernel has no
# UDP_SEGMENT / UDP_GRO.
mpiexec=$1
shift
out=$(mktemp)
SCTPMPI_SCTP_BACKEND=native SCTPMPI_SCTP_MTU=1500 SCTPMPI_STATS=1 \
  "$mpiexec" -n 2 --transport sctp --timeout 120 "$@" >"$out" 2>&1
rc=$?
cat "$out"
if grep -q "sctpn: gso unsupported\|gro unsupported" "$out"; then
  echo "sm-test SKIPPED: this kernel has no UDP_SEGMENT or UDP_GRO"
  rm -f "$out"
  exit 0
fi
[ "$rc" -ne 0 ] && echo "sm-test FAILED: launcher exit status $rc"
for r in 0 1; do
  line=$(grep "^\[rank $r\] sctpn: gso " "$out")
  gso=$(echo "$line" | sed -n 's/.*super-datagrams out \([0-9]*\) (packets \([0-9]*\).*/\1 \2/p')
  gro=$(echo "$line" | sed -n 's/.*batches in \([0-9]*\) (packets \([0-9]*\).*/\1 \2/p')
  set -- $gso $gro
  echo "sm-test gso: rank $r super-datagrams ${1:-none} (packets ${2:-none}), gro batches ${3:-none} (packets ${4:-none})"
  if [ -z "$line" ] || [ "${1:-0}" -eq 0 ] || [ "${2:-0}" -le "${1:-0}" ]; then
    echo "sm-test FAILED: rank $r sent no GSO super-datagram of several packets"
  fi
  if [ "${3:-0}" -eq 0 ] || [ "${4:-0}" -le "${3:-0}" ]; then
    echo "sm-test FAILED: rank $r split no coalesced (GRO) receive into packets"
  fi
done
rm -f "$out"
exit "$rc"
