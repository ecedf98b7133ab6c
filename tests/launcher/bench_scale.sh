#!/bin/bash
# bench_scale.sh BUILD_DIR [HOSTS] [RANKS_PER_HOST] — launch at scale: 64 ranks on this host,
# then HOSTS x RANKS_PER_HOST (default 8 x 32 = 256) ranks on netlab's emulated hosts with one
# sctpmpi_proxy per host (started with `netlab exec HOST --` as the rsh command), over tcp and
# sctp.  Each run is scale_check: ring, Allreduce, Alltoall and Bcast checked; it prints the
# start-up time (launch to the end of MPI_Init, slowest rank), RSS per rank and sockets per
# rank.  The netlab part needs root (skipped with the reason otherwise).  Exit 0 when every
# run printed " No Errors".
set -u
b=$(readlink -f "${1:?usage: bench_scale.sh BUILD_DIR [HOSTS] [RANKS_PER_HOST]}")
nh=${2:-8}; ppn=${3:-32}
mpiexec=$b/tools/mpiexec/mpiexec; netlab=$b/tools/netlab/netlab
prog=$b/tests/launcher/scale_check
rc=0
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# what else is running (the figures below are only as good as the machine is quiet)
echo "busiest other processes: $(ps -eo pcpu=,comm= --sort=-pcpu | head -8 | awk '{printf "%s %s%%, ", $2, $1}')"
# SCTP associations per rank, from the SCTPMPI_STATS lines "[rank R] sctpn: rank P assoc A"
assocs() {
  grep -E '^\[rank [0-9]+\] sctpn: rank [0-9]+ assoc [0-9]+( \(ours\))?:' |
    awk '{n[$2]++} END {for (r in n) {t += n[r]; if (n[r] > m) m = n[r]; k++}
                        if (k) printf " sctp_assocs_per_rank_mean %.1f max %d", t / k, m}'
}
run() { # label command...
  local label=$1; shift
  local s e out
  s=$(date +%s.%N)
  out=$("$@" 2>&1)
  e=$(date +%s.%N)
  echo "$label: $(echo "$out" | grep '^scale:')$(echo "$out" | assocs) wall_s $(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}')"
  echo "$out" | grep -q " No Errors" || { echo "$out" | tail -5; rc=1; }
}
for t in tcp sctp; do
  run "one host, $t" env SM_LAUNCH_T0="$(date +%s.%N)" "$mpiexec" -n 64 --transport $t \
    -x SCTPMPI_STATS=1 --timeout 120 "$prog"
done
if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ]; then
  echo "SKIP the netlab runs: they need root and /dev/net/tun"
  exit $rc
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_scale_XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "{ \"hosts\": $nh }" >"$dir/topo.json"
hl=""
for ((i = 0; i < nh; i++)); do hl+="h$i:$ppn,"; done
hl=${hl%,}
for t in tcp sctp; do
  run "$nh netlab hosts x $ppn, $t" "$netlab" run "$dir/topo.json" -- sh -c \
    "SM_LAUNCH_T0=\$(date +%s.%N) exec '$mpiexec' --launcher-rsh '$netlab exec %h --' \
     -H $hl --transport $t -x SCTPMPI_STATS=1 --timeout 120 '$prog'"
done
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
