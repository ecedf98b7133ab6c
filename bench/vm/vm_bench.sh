#!/bin/bash
# vm_bench.sh BUILD_DIR [OUT.csv] — latency and bandwidth of the kernel SCTP backend against our
# SCTP engine (native) and TCP, all three inside the same guest over the same link
# (scripts/vm/vmlab.sh), so the comparison is fair: by default one guest whose two network
# namespaces are joined by a veth pair (VM_GUESTS=2: two guests joined by a qemu UDP wire, one
# rank per guest).  One rank per namespace (or guest); bench/p2p's pingpong
# and bw.  Writes "transport,bench,size_bytes,value" rows (latency_us / mb_per_s) and prints
# a table.  Numbers from emulated guests (TCG) measure the relative cost of the stacks only.
set -u
build=$(cd "${1:?usage: vm_bench.sh BUILD_DIR [OUT.csv]}" && pwd)
out=${2:-/dev/stdout}
here=$(cd "$(dirname "$0")" && pwd)
[ "${VM_GUESTS:-1}" = 1 ] && export VM_NETNS=1
. "$here/../../scripts/vm/vmlab.sh"
why=$(vm_check) || { echo "SKIP: $why"; exit 77; }
if [ -n "${VM_ATTACH:-}" ]; then VM_TMP=$VM_ATTACH; else trap vm_down EXIT; vm_up || exit 1; fi
sizes=${BENCH_SIZES:-8,1024,16384,65536,262144}
rows=$(mktemp)
for tr in kernel native tcp; do
  env=(-x SCTPMPI_TRANSPORT=sctp -x SCTPMPI_SCTP_BACKEND=$tr)
  [ $tr = tcp ] && env=(-x SCTPMPI_TRANSPORT=tcp)
  vm_mpirun -n 2 --timeout 300 "${env[@]}" -- "$build/bench/p2p/pingpong" --csv --sizes "$sizes" \
    --iters "${BENCH_ITERS:-200}" --iters-large "${BENCH_ITERS_LARGE:-50}" 2>&1 |
    awk -F, -v t=$tr '/^\[0\] pingpong,[0-9]/ {print t ",latency_us," $2 "," $4}' >>"$rows"
  vm_mpirun -n 2 --timeout 300 "${env[@]}" -- "$build/bench/p2p/bw" --csv --sizes "$sizes" \
    --iters "${BENCH_ITERS:-50}" --iters-large "${BENCH_ITERS_LARGE:-20}" 2>&1 |
    awk -F, -v t=$tr '/^\[0\] bw,[0-9]/ {print t ",mb_per_s," $2 "," $5}' >>"$rows"
done
{ echo "transport,bench,size_bytes,value"; cat "$rows"; } >"$out"
echo "# $(date -u +%F) guests: ${VM_ACCEL_NAME:-attached}${VM_NETNS:+ (one guest, two namespaces)}; sizes $sizes; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
awk -F, '{v[$2" "$3, $1]=$4; k[$2" "$3]=1} END {printf "%-22s %12s %12s %12s\n", "bench size", "kernel", "native", "tcp";
  for (x in k) printf "%-22s %12s %12s %12s\n", x, v[x, "kernel"], v[x, "native"], v[x, "tcp"]}' "$rows" | sort -k1,1 -k2n >&2
rm -f "$rows"
