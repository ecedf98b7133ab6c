#!/bin/bash
# vm_tests.sh BUILD_DIR — the kernel SCTP backend (SCTPMPI_SCTP_BACKEND=kernel) in two guests
# with Linux's SCTP (scripts/vm/vmlab.sh): point-to-point test programs with 2 and 4 ranks
# across the guests with 1 % loss each way, collective ones with 4 ranks, then a multihomed stream (2 links,
# SCTPMPI_SCTP_FAILOVER=lan) that must survive link 1 being cut mid-stream.  Boots the guests
# once for all cases.  Prints "PASS: ..." per case and "SKIP: reason" (exit 77) where guests
# cannot run here; cleans up every guest and temp file on any exit.
set -u
build=$(cd "${1:?usage: vm_tests.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
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
  out=$(vm_mpirun -n "$np" --timeout "$to" "${kern[@]}" -- "$@" 2>&1)
  local rc=$?
  if [ $rc = 0 ] && grep -q "^\[0\]  No Errors" <<<"$out"; then
    echo "PASS: $name ($np ranks, $((SECONDS - s)) s)"
  else
    echo "FAIL: $name ($np ranks, exit $rc); output:"
    tail -25 <<<"$out"
    fails=$((fails + 1))
  fi
}

vm_netem 1 "loss 1%" || { echo "FAIL: cannot set netem on link 1"; exit 1; }
echo "link 1: 1 % loss each way (tc netem in both guests)"
# VM_QUICK=1: one program per kind (for emulated guests on a busy host)
p2=(pingpong_sizes send_modes nonovertaking probe flood) p4=(sendrecv_replace_ring alltoall_p2p)
# collectives without loss: coll_coll_reduce with 4 ranks under 1 % loss times out in the
# emulated guests over TCP and our engine as well as over the kernel backend (not the backend;
# to look at with KVM); coll_comm_groups assumes every rank on one host
c4=(coll_coll_reduce coll_coll_algo coll_icoll)
[ -n "${VM_QUICK:-}" ] && p2=(send_modes) p4=(alltoall_p2p) c4=(coll_coll_reduce)
for prog in "${p2[@]}"; do run_case "mpi/$prog" 2 "$build/tests/mpi/$prog"; done
for prog in "${p4[@]}"; do run_case "mpi/$prog" 4 "$build/tests/mpi/$prog"; done
vm_netem 1 ""
echo "link 1: no loss"
for prog in "${c4[@]}"; do run_case "coll/$prog" 4 "$build/tests/coll/$prog"; done

# multihoming: both links, lan preset; cut link 1 once the association is up and the stream runs
# (under emulation the lan preset's 100 ms RTO ceiling and 8 retransmissions would lose the
# association on a guest stall: a 1 s ceiling and 30 retransmissions there)
s=$SECONDS
slow=()
[ "${VM_ACCEL_NAME:-$accel}" != kvm ] &&
  slow=(-x SCTPMPI_SCTP_RTO_MAX=1000 -x SCTPMPI_SCTP_ASSOC_MAX_RETRANS=30)
(
  for _ in $(seq 1 60); do
    n=$(vm_exec 1 60 'grep -c . /proc/net/sctp/assocs 2>/dev/null' 2>/dev/null)
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
  -n "${VM_MH_COUNT:-6000}" -p 1000 -g 10 2>&1)
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
echo "vm tests: $fails failure(s), $((SECONDS - t0)) s in all"
[ $fails = 0 ]
