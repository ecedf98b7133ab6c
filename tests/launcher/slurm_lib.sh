# slurm_lib.sh — what the Slurm tests share: the checks that decide whether they can run, a
# free port range, the slurm.conf lines every test cluster has, and stopping every process the
# test's cluster started (by pid, then anything whose environment names the test's slurm.conf).
# Sourced by check_slurm.sh and check_slurm_netlab.sh; they set T (their scratch directory)
# and collect the daemons' pids in $pids.

# slurm_require WHY: skip (77) unless root and Slurm's daemons and clients are installed
slurm_require() {
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root ($1)"; exit 77; }
  for c in slurmctld slurmd srun sinfo; do
    command -v $c >/dev/null || { echo "SKIP: $c is not installed (slurm-wlm)"; exit 77; }
  done
}

# slurm_ports: sets base to the first of 41 ports (daemons, then srun's range) in a range the
# usual services do not use, moved on while one is taken; two Slurm tests never run at once
# (RESOURCE_LOCK)
slurm_ports() {
  base=$((20000 + $$ % 20000))
  for try in 1 2 3 4 5 6 7 8; do
    ss -Htlnu 2>/dev/null | awk '{print $5}' | grep -Eq ":($base|$((base + 1)))\$" || break
    base=$((20000 + (base + 97) % 20000))
  done
}

# slurm_conf_common NAME CONTROLLER_ADDR: the slurm.conf lines every test cluster shares
slurm_conf_common() {
  cat <<CONF
ClusterName=$1
SlurmctldHost=$(hostname -s)($2)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SrunPortRange=$((base + 2))-$((base + 40))
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$T/state
SlurmctldPidFile=$T/slurmctld.pid
SlurmctldLogFile=$T/slurmctld.log
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
CONF
}

# slurm_stop: the daemons in $pids first (politely, then not), then anything else started
# under this test's slurm.conf (step daemons, tasks)
slurm_stop() {
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
}
