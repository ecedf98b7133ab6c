#!/bin/sh
# gso_fallback.sh MPIEXEC PROG [ARGS...] — the route refuses UDP GSO: runs PROG on 2 ranks
# over the native SCTP transport in a private network namespace whose loopback has a 1500-byte
# MTU, with SCTPMPI_SCTP_MTU=4000 (segments bigger than the route's MTU: the kernel refuses
# the super-datagram) and SCTPMPI_SCTP_GSO=on.  Checks that every rank saw the refusal, sent
# the packets one by one (PROG still passes its data checks) and lost none.
# Prints "sm-test FAILED: ..." on failure, "sm-test SKIPPED: ..." when no network namespace can
# be made (not root) or the kernel has no UDP_SEGMENT.
mpiexec=$1
shift
if ! unshare -n true 2>/dev/null; then
  echo "sm-test SKIPPED: cannot create a network namespace (unshare -n; needs root)"
  exit 0
fi
out=$(mktemp)
unshare -n sh -c 'ip link set lo up mtu 1500 && exec "$@"' sh env SCTPMPI_SCTP_BACKEND=native \
  SCTPMPI_SCTP_MTU=4000 SCTPMPI_SCTP_GSO=on SCTPMPI_STATS=1 \
  "$mpiexec" -n 2 --transport sctp --timeout 120 "$@" >"$out" 2>&1
rc=$?
cat "$out"
if grep -q "sctpn: gso unsupported" "$out"; then
  echo "sm-test SKIPPED: this kernel has no UDP_SEGMENT"
  rm -f "$out"
  exit 0
fi
[ "$rc" -ne 0 ] && echo "sm-test FAILED: launcher exit status $rc"
for r in 0 1; do
  refused=$(sed -n "s/^\[rank $r\] sctpn: gso refused, .*refused \([0-9]*\)).*/\1/p" "$out")
  lost=$(sed -n "s/^\[rank $r\] sctpn: datagrams in .*lost out \([0-9]*\),.*/\1/p" "$out")
  echo "sm-test gso_fallback: rank $r refused super-datagrams ${refused:-none}, lost packets ${lost:-none}"
  [ "${refused:-0}" -ge 1 ] || echo "sm-test FAILED: rank $r did not see GSO refused and turned off"
  [ "${lost:-1}" -eq 0 ] || echo "sm-test FAILED: rank $r lost ${lost:-?} packets"
done
rm -f "$out"
exit "$rc"
