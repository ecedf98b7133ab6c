#!/bin/bash
# vm_tests.sh BUILD_DIR — the kernel SCTP backend (SCTPMPI_SCTP_BACKEND=kernel) on Linux's SCTP in
# a test guest (scripts/vm/vmlab.sh).  By default ONE guest holds two network namespaces that
# stand for two hosts (VM_NETNS=1; VM_GUESTS=2 boots two guests instead): point-to-point and
# collective test programs with 2 and 4 ranks across them with 1 % loss each way, a multihomed
# stream (2 links, SCTPMPI_SCTP_FAILOVER=lan) that must survive link 1 being cut mid-stream,
# and the interop job: ranks in the guest on kernel SCTP in UDP (SCTPMPI_KSCTP_UDP_PORT) and
# ranks on this host on our engine (SCTP in UDP) in one MPI job, over a TAP device.
# Prints "PASS: ..." per case and "SKIP: reason" (exit 77) where guests cannot run here; cleans
# up every guest, TAP device and temp file on any exit.
set -u
build=$(cd "${1:?usage: vm_tests.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if [ "${VM_GUESTS:-1}" = 1 ]; then
  export VM_NETNS=1
  [ -c /dev/net/tun ] && export VM_TAP=${VM_TAP-1}
fi
. "$here/../../scripts/vm/vmlab.sh"
case $build in
  "$VM_SHARE"/*) ;;
  *) echo "SKIP: the build directory $build is not inside $VM_SHARE (the tree the guests see)"; exit 77 ;;
esac
why=$(vm_check) || { echo "SKIP: $why"; exit 77; }
accel=$(vm_accel_guess)
if [ "$accel" != kvm ] && [ -z "${SCTPMPI_VM_ALLOW_TCG:-}${VM_ATTACH:-}" ]; then
  echo "SKIP: no usable KVM (${accel#tcg: }); under TCG emulation the guests take minutes to" \
    "boot and run: set SCTPMPI_VM_ALLOW_TCG=1 to run anyway"
  exit 77
fi
t0=$SECONDS
if [ -n "${VM_ATTACH:-}" ]; then # guests already running (vmlab.sh hold FILE; VM_ATTACH=$(cat FILE))
  VM_TMP=$VM_ATTACH
else
  trap vm_down EXIT
  trap 'exit 130' INT TERM
  vm_up || { echo "FAIL: the guests did not boot"; exit 1; }
  echo "guests up after $((SECONDS - t0)) s ($VM_ACCEL_NAME)"
fi
vm_exec 1 120 'lsmod | grep -qw sctp && echo "guest kernel $(uname -r) has SCTP"' ||
  { echo "FAIL: no sctp module in the guest"; exit 1; }
fails=0
kern=(-x SCTPMPI_TRANSPORT=sctp -x SCTPMPI_SCTP_BACKEND=kernel)
to=${VM_CASE_TIMEOUT:-90}

run_case() { # NAME NP PROGRAM [ARGS] — one MPI program across the guests; PASS when rank 0 says so
  local name=$1 np=$2 out
  shift 2
  local s=$SECONDS
  out=$(vm_mpirun -n "$np" --timeout "$to" "${kern[@]}" "${extra[@]}" -- "$@" 2>&1)
  local rc=$?
  if [ $rc = 0 ] && grep -q "^\[0\]  No Errors" <<<"$out"; then
    echo "PASS: $name ($np ranks$where, $((SECONDS - s)) s)"
  else
    echo "FAIL: $name ($np ranks$where, exit $rc); output:"
    tail -25 <<<"$out"
    fails=$((fails + 1))
  fi
}
extra=() where=""

vm_netem 1 "loss 1%" || { echo "FAIL: cannot set netem on link 1"; exit 1; }
echo "link 1: 1 % loss each way (tc netem at both ends)"
# the default set is one program per kind (the suite's budget under emulation); VM_FULL=1 runs
# more; coll_comm_groups assumes every rank on one host
p2=(send_modes) p4=(alltoall_p2p) c4=(coll_app_jacobi)
[ -n "${VM_FULL:-}" ] && p2=(pingpong_sizes send_modes nonovertaking probe flood) \
  p4=(sendrecv_replace_ring alltoall_p2p) c4=(coll_app_jacobi coll_allreduce_rab coll_coll_reduce coll_coll_algo coll_icoll)
for prog in "${p2[@]}"; do run_case "mpi/$prog" 2 "$build/tests/mpi/$prog"; done
for prog in "${p4[@]}"; do run_case "mpi/$prog" 4 "$build/tests/mpi/$prog"; done
for prog in "${c4[@]}"; do run_case "coll/$prog" 4 "$build/tests/coll/$prog"; done
vm_netem 1 ""
echo "link 1: no loss"

# multihoming: both links, lan preset; cut link 1 once the association is up and the stream runs
# (under emulation the lan preset's 100 ms RTO ceiling and 8 retransmissions would lose the
# association on a guest stall: a 1 s ceiling and 30 retransmissions there)
s=$SECONDS
slow=() gap=10
# (and a guest starved by a loaded host stalls for seconds: the longest gap allowed is 30 s)
[ "${VM_ACCEL_NAME:-$accel}" != kvm ] &&
  slow=(-x SCTPMPI_SCTP_RTO_MAX=1000 -x SCTPMPI_SCTP_ASSOC_MAX_RETRANS=30) gap=30
assocs='grep -c . /proc/net/sctp/assocs 2>/dev/null'
[ -n "${VM_NETNS:-}" ] && assocs='ip netns exec n1 grep -c . /proc/net/sctp/assocs 2>/dev/null'
(
  for _ in $(seq 1 60); do
    n=$(vm_exec 1 60 "$assocs" 2>/dev/null)
    [ "${n:-0}" -ge 2 ] && break
    sleep 1
  done
  sleep "${VM_CUT_AFTER:-3}"
  vm_link 1 off
  echo "link 1 cut at $((SECONDS - s)) s"
) &
cutter=$!
out=$(vm_mpirun -n 2 --links 2 --timeout "$to" "${kern[@]}" -x SCTPMPI_SCTP_FAILOVER=lan \
  "${slow[@]}" -x SCTPMPI_SCTP_DEBUG=1 -x SCTPMPI_STATS=1 -- "$build/tests/multihome/mh_stream" \
  -n "${VM_MH_COUNT:-6000}" -p 1000 -g "$gap" 2>&1)
rc=$?
wait $cutter
vm_link 1 on
if [ $rc = 0 ] && grep -q "^\[0\]  No Errors" <<<"$out" &&
  grep -q "messages intact and in order, 0 bad" <<<"$out" &&
  grep -Eq "path 10\.1\.0\.[12] of rank [01]: unreachable" <<<"$out"; then
  echo "PASS: multihomed failover: the stream arrived whole across the cut of link 1" \
    "($((SECONDS - s)) s; $(grep -o 'longest gap between deliveries [0-9.]* s' <<<"$out" | head -1))"
else
  echo "FAIL: multihomed failover (exit $rc); output:"
  tail -40 <<<"$out"
  fails=$((fails + 1))
fi

# interop: ranks in the guest on the kernel's SCTP in UDP (port 9899 in both namespaces) and
# ranks on this host on our engine, in one job over the TAP link
if [ -n "${VM_TAPDEV:-}" ]; then
  # the guest's virtio NIC drops packets of a burst under emulation, and Linux waits at least
  # 1 s (RTO.min) to send a lost chunk again: a shorter RTO on both sides keeps the job short
  kern=(-x SCTPMPI_TRANSPORT=sctp -x SCTPMPI_SCTP_RTO_MIN=50 -x SCTPMPI_SCTP_RTO_INITIAL=500
    -x SCTPMPI_SCTP_RTO_MAX=1000)
  iop=(-xg SCTPMPI_SCTP_BACKEND=kernel -xg SCTPMPI_KSCTP_UDP_PORT=9899 -xh SCTPMPI_SCTP_BACKEND=native)
  extra=(--host 1 "${iop[@]}")
  where=": rank 0 on kernel SCTP in the guest, rank 1 on our engine on the host"
  for prog in "${p2[@]}"; do run_case "interop mpi/$prog" 2 "$build/tests/mpi/$prog"; done
  extra=(--host 2 "${iop[@]}")
  where=": 2 on kernel SCTP in the guest, 2 on our engine on the host"
  for prog in "${p4[@]}"; do run_case "interop mpi/$prog" 4 "$build/tests/mpi/$prog"; done
  for prog in "${c4[@]}"; do run_case "interop coll/$prog" 4 "$build/tests/coll/$prog"; done
else
  echo "interop job not run: no TAP device to the guest (needs /dev/net/tun and VM_NETNS=1)"
fi
echo "vm tests: $fails failure(s), $((SECONDS - t0)) s in all"
[ $fails = 0 ]
