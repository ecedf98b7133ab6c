#!/bin/sh
# check_slurm.sh MPI PT2PT COLL ABORT — our MPI programs under a real Slurm started by this
# test: a one-node cluster on 127.0.0.1 (slurm.conf, state, spool and logs in a temporary
# directory; auth/none, so no munge), slurmctld and slurmd run by their pids, then
#   srun --mpi=MPI -n 4 PT2PT and COLL over tcp and sctp: " No Errors", exit 0, booted through
#     the expected PMI client (pmix, or pmi2 = the PMI-2 wire protocol) with 4 local ranks;
#   under pmi2, PT2PT once more with SCTPMPI_PMI=pmi1 (the plugin serves PMI-1 too);
#   srun --mpi=MPI -n 4 ABORT: the step ends with a non-zero status within 15 s.
# Every process the test started (daemons, step daemons, tasks) is stopped by pid at the end,
# also on failure, and the directory removed.  Root only; exits 77 (skip) with a reason when
# Slurm or the MPI plugin is missing.
set -u
mpi=$1; pt2pt=$2; coll=$3; abortp=$4
. "$(dirname "$0")/slurm_lib.sh"
slurm_require "runs slurmctld and slurmd"
if [ "$mpi" = pmix ] && ! ldd "$pt2pt" | grep -q libpmix; then
  echo "SKIP: libsctpmpi was built without PMIx (install libpmix-dev and rebuild)"; exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sm_slurm_XXXXXX")
chmod 755 "$T"
pids=""
cleanup() {
  rc=$?
  slurm_stop
  if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
    echo "--- slurmctld log (tail)"; tail -20 "$T/slurmctld.log" 2>/dev/null
    echo "--- slurmd log (tail)"; tail -20 "$T/slurmd.log" 2>/dev/null
  fi
  rm -rf "$T"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$T/out" 2>/dev/null; exit 1; }

slurm_ports
mkdir -p "$T/state" "$T/spool" "$T/tmp"
{ slurm_conf_common smtest 127.0.0.1; cat <<CONF; } >"$T/slurm.conf"
SlurmdSpoolDir=$T/spool
TmpFS=$T/tmp
SlurmdPidFile=$T/slurmd.pid
SlurmdLogFile=$T/slurmd.log
NodeName=$(hostname -s) NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=sm Nodes=$(hostname -s) Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
SLURM_CONF=$T/slurm.conf; export SLURM_CONF
srun --mpi=list >"$T/mpilist" 2>&1
grep -qw "$mpi" "$T/mpilist" || { echo "SKIP: this Slurm has no --mpi=$mpi plugin:"; cat "$T/mpilist"; exit 77; }
slurmctld -D -i -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$T/slurm.conf" >"$T/slurmd.out" 2>&1 &
pids="$pids $!"
i=0
until [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; do
  i=$((i + 1))
  [ $i -le 150 ] || { cat "$T/slurmctld.out" "$T/slurmd.out"; fail "the node did not come up idle in 15 s"; }
  sleep 0.1
done
echo "slurm up: $(sinfo -h -o '%P %a %D %t %N') (slurmctld, slurmd pids:$pids)"

run() { # expected-status(0|nonzero) program transport [env]
  want=$1; prog=$2; tp=$3; shift 3
  echo "\$ srun --mpi=$mpi -n 4 --export=ALL,SCTPMPI_TRANSPORT=$tp$* $(basename "$prog")"
  start=$(date +%s)
  timeout 30 srun --mpi="$mpi" -n 4 --export="ALL,SCTPMPI_TRANSPORT=$tp$*" "$prog" >"$T/out" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  echo "  exit status $rc after ${took} s"
  if [ "$want" = 0 ]; then
    [ "$rc" = 0 ] || fail "$(basename "$prog") exited $rc"
  else
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$(basename "$prog") exited $rc, expected a failure"
  fi
}

for tp in tcp sctp; do
  run 0 "$pt2pt" $tp ",SCTPMPI_VERBOSE=3"
  grep -q "^ No Errors" "$T/out" || fail "pt2pt did not print No Errors"
  n=$(grep -c "booted through $mpi: rank [0-3] of 4, local rank [0-3] of 4" "$T/out")
  [ "$n" = 4 ] || fail "expected 4 ranks booted through $mpi with 4 local ranks, saw $n"
  grep "booted through" "$T/out" | sort | sed 's/^/  /'
  grep "^ No Errors" "$T/out"
  run 0 "$coll" $tp
  grep -q "^ No Errors" "$T/out" || fail "collective did not print No Errors"
  grep "^ No Errors" "$T/out"
done
if [ "$mpi" = pmi2 ]; then # Slurm's pmi2 plugin also serves PMI-1 on the same PMI_FD
  run 0 "$pt2pt" tcp ",SCTPMPI_PMI=pmi1,SCTPMPI_VERBOSE=3"
  n=$(grep -c "booted through pmi1: rank [0-3] of 4" "$T/out")
  [ "$n" = 4 ] || fail "expected 4 ranks booted through pmi1, saw $n"
  grep "^ No Errors" "$T/out"
fi
run nonzero "$abortp" tcp
[ "$took" -le 15 ] || fail "the aborted step took ${took} s to end"
grep -q "MPI_Abort called with error code 7" "$T/out" || fail "no MPI_Abort message"
grep -E "MPI_Abort called|srun: error" "$T/out" | sed 's/^/  /'
echo "PASS: pt2pt, collective (tcp, sctp) and MPI_Abort under srun --mpi=$mpi"
