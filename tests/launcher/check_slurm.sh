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
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (runs slurmctld and slurmd)"; exit 77; }
for c in slurmctld slurmd srun sinfo; do
  command -v $c >/dev/null || { echo "SKIP: $c is not installed (slurm-wlm)"; exit 77; }
done
if [ "$mpi" = pmix ] && ! ldd "$pt2pt" | grep -q libpmix; then
  echo "SKIP: libsctpmpi was built without PMIx (install libpmix-dev and rebuild)"; exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sm_slurm_XXXXXX")
chmod 755 "$T"
pids=""
cleanup() {
  rc=$?
  # the daemons first (politely, then not), then anything else started under our slurm.conf
  for p in $pids; do kill "$p" 2>/dev/null; done
  i=0
  while [ $i -lt 50 ]; do
    left=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    [ -z "$left" ] && break
    sleep 0.1; i=$((i + 1))
  done
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "SLURM_CONF=$T/slurm.conf" && kill -9 "$p" 2>/dev/null
  done
  for p in $pids; do wait "$p" 2>/dev/null; done
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

host=$(hostname -s)
# ports in a range the usual services do not use, moved on while one is taken; two of these
# tests never run at once (RESOURCE_LOCK)
base=$((20000 + $$ % 20000))
for try in 1 2 3 4 5 6 7 8; do
  ss -Htlnu 2>/dev/null | awk '{print $5}' | grep -Eq ":($base|$((base + 1)))\$" || break
  base=$((20000 + (base + 97) % 20000))
done
mkdir -p "$T/state" "$T/spool" "$T/tmp"
cat >"$T/slurm.conf" <<CONF
ClusterName=smtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SrunPortRange=$((base + 2))-$((base + 40))
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
TmpFS=$T/tmp
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=sm Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
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
