#!/bin/sh
# check_slurm_netlab.sh NETLAB PT2PT COLL — a two-node Slurm on netlab's emulated hosts: each
# host (a network namespace) runs its own slurmd (-N n0 / n1, reached on its management
# address), slurmctld runs in the root namespace on the management bridge, and
#   srun -N 2 -n 4 --mpi=pmix|pmi2 PT2PT and COLL over tcp and sctp
# must print " No Errors", exit 0, and boot with 2 local ranks per node; the ranks bind their
# host's rail address (a small wrapper sets SCTPMPI_ADDRS), so the data crosses netlab's
# forwarder (its byte counters are checked).  In each host's mount namespace slurmd gets a
# cgroup v1 mount (ip netns exec remounts /sys) and a /tmp of its own (Slurm's PMIx plugin keeps
# per-step directories there under names that would collide between the two nodes).
# Stops everything it started by pid and tears the network down, also on failure.  Root only;
# exits 77 (skip) when Slurm, netlab's needs (/dev/net/tun) or PMIx are missing.
set -u
netlab=$1; pt2pt=$2; coll=$3
. "$(dirname "$0")/slurm_lib.sh"
slurm_require "network namespaces, slurmd"
[ -c /dev/net/tun ] || { echo "SKIP: /dev/net/tun is missing (netlab needs TUN)"; exit 77; }
ldd "$pt2pt" | grep -q libpmix || { echo "SKIP: libsctpmpi was built without PMIx"; exit 77; }

# not under /tmp: each node's /tmp is replaced by its own directory
T=$(mktemp -d /var/tmp/sm_slurmnl_XXXXXX)
chmod 755 "$T"
pids=""; RUN=""
cleanup() {
  rc=$?
  slurm_stop
  [ -n "$RUN" ] && "$netlab" stop --run "$RUN" >/dev/null 2>&1
  if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
    for f in "$T"/slurmctld.log "$T"/slurmd-n0.log "$T"/slurmd-n1.log "$T"/*.out; do
      [ -f "$f" ] && { echo "--- $f (tail)"; tail -15 "$f"; }
    done
  fi
  rm -rf "$T"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$T/out" 2>/dev/null; exit 1; }

echo '{ "hosts": ["n0", "n1"], "rails": 1 }' >"$T/two.json"
RUN=$("$netlab" start "$T/two.json" 2>"$T/netlab.out") || { RUN=""; cat "$T/netlab.out"; fail "netlab start failed"; }
gw=$("$netlab" exec --run "$RUN" n0 -- printenv NETLAB_MGMT_GW)
a0=$("$netlab" exec --run "$RUN" n0 -- printenv NETLAB_MGMT_ADDR)
a1=$("$netlab" exec --run "$RUN" n1 -- printenv NETLAB_MGMT_ADDR)
host=$(hostname -s)
slurm_ports
mkdir -p "$T/state" "$T/tmp-n0" "$T/tmp-n1"
chmod 1777 "$T/tmp-n0" "$T/tmp-n1"
{ slurm_conf_common smnl "$gw"; cat <<CONF; } >"$T/slurm.conf"
SlurmdSpoolDir=$T/spool-%n
TmpFS=/tmp
SlurmdPidFile=$T/slurmd-%n.pid
SlurmdLogFile=$T/slurmd-%n.log
NodeName=n0 NodeAddr=$a0 NodeHostname=$host CPUs=2 State=UNKNOWN
NodeName=n1 NodeAddr=$a1 NodeHostname=$host CPUs=2 State=UNKNOWN
PartitionName=sm Nodes=n0,n1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n' >"$T/cgroup.conf"
cat >"$T/rail0.sh" <<'WRAP'
#!/bin/sh
# the rank binds its host's rail 0 address, so rank-to-rank data crosses netlab's forwarder
SCTPMPI_ADDRS=$(ip -4 -o addr show dev rail0 | awk '{print $4}' | cut -d/ -f1)
export SCTPMPI_ADDRS
exec "$@"
WRAP
chmod 755 "$T/rail0.sh"
SLURM_CONF=$T/slurm.conf; export SLURM_CONF
slurmctld -D -i -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
pids="$pids $!"
# a build or working directory under /tmp (a CI clone, say) stays visible on the nodes: its top
# directory is bound into the node's own /tmp before that replaces the real one
keep=""
for p in "$pt2pt" "$coll" "$(pwd)"; do
  case $p in
    /tmp/?*) top=${p#/tmp/}; top=/tmp/${top%%/*}; case " $keep " in *" $top "*) ;; *) keep="$keep $top" ;; esac ;;
  esac
done
for n in 0 1; do
  binds=""
  for k in $keep; do
    mkdir -p "$T/tmp-n$n${k#/tmp}"
    binds="$binds mount --bind $k $T/tmp-n$n${k#/tmp} &&"
  done
  "$netlab" exec --run "$RUN" n$n -- sh -c "mount -t tmpfs none /sys/fs/cgroup &&
    mkdir /sys/fs/cgroup/freezer && mount -t cgroup -o freezer none /sys/fs/cgroup/freezer &&
    $binds mount --rbind $T/tmp-n$n /tmp && exec slurmd -D -N n$n -f $T/slurm.conf" >"$T/slurmd-n$n.out" 2>&1 &
  pids="$pids $!"
done
i=0
until [ "$(sinfo -h -o '%t %D' 2>/dev/null)" = "idle 2" ]; do
  i=$((i + 1))
  [ $i -le 200 ] || fail "the two nodes did not come up idle in 20 s: $(sinfo -h 2>&1)"
  sleep 0.1
done
echo "slurm up on netlab run $RUN: $(sinfo -h -o '%P %a %D %t %N')"

for mpi in pmix pmi2; do
  for tp in tcp sctp; do
    for prog in "$pt2pt" "$coll"; do
      echo "\$ srun -N 2 -n 4 --mpi=$mpi --export=ALL,SCTPMPI_TRANSPORT=$tp,SCTPMPI_VERBOSE=3 rail0.sh $(basename "$prog")"
      start=$(date +%s)
      timeout 30 srun -N 2 -n 4 --mpi=$mpi --export="ALL,SCTPMPI_TRANSPORT=$tp,SCTPMPI_VERBOSE=3" \
        "$T/rail0.sh" "$prog" >"$T/out" 2>&1
      rc=$?
      echo "  exit status $rc after $(($(date +%s) - start)) s"
      [ "$rc" = 0 ] || fail "$(basename "$prog") exited $rc"
      grep -q "^ No Errors" "$T/out" || fail "no No Errors"
      n=$(grep -c "booted through $mpi: rank [0-3] of 4, local rank [01] of 2" "$T/out")
      [ "$n" = 4 ] || fail "expected 4 ranks booted through $mpi, 2 per node, saw $n"
      [ "$prog" = "$pt2pt" ] && grep "booted through" "$T/out" | sort | sed 's/^/  /'
      grep "^ No Errors" "$T/out"
    done
  done
done
NETLAB_RUN=$RUN "$netlab" stats >"$T/stats" 2>&1
grep "^link" "$T/stats" | sed 's/^/  /'
for dir in "src=n0 dst=n1" "src=n1 dst=n0"; do
  b=$(grep "^link rail=0 $dir " "$T/stats" | sed 's/.*fwd_bytes=\([0-9]*\).*/\1/')
  [ "${b:-0}" -gt 10000 ] || fail "netlab forwarded only ${b:-0} bytes $dir: the ranks did not use the rail"
done
echo "PASS: srun --mpi=pmix and --mpi=pmi2 across two netlab hosts over tcp and sctp"
