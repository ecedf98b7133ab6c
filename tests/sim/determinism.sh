#!/bin/sh
# determinism.sh MPIEXEC FARM TOPO — runs the same farm on the same simulated network twice
# (computation not charged: --sim-cpu-scale 0) and requires the same virtual run time, the
# same event count and byte-identical packet captures of every link.
mpiexec=$1 farm=$2 topo=$3
dir=$(mktemp -d /tmp/sim-det-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
for i in 1 2; do
  "$mpiexec" --sim "$topo" --sim-cpu-scale 0 --sim-seed 5 --sim-pcap "$dir/pcap$i" -n 8 \
    --timeout 120 "$farm" --tasks 70 --size 12288 > "$dir/out$i" 2>&1
  rc=$?
  cat "$dir/out$i"
  [ $rc -eq 0 ] || { echo "sim-test FAILED: run $i exit status $rc"; exit 1; }
done
l1=$(grep '^sim: virtual time' "$dir/out1" | sed 's/, wall.*//')
l2=$(grep '^sim: virtual time' "$dir/out2" | sed 's/, wall.*//')
[ -n "$l1" ] || { echo "sim-test FAILED: no virtual time printed"; exit 1; }
[ "$l1" = "$l2" ] || { echo "sim-test FAILED: '$l1' vs '$l2'"; exit 1; }
f1=$(grep '^farm,' "$dir/out1") f2=$(grep '^farm,' "$dir/out2")
[ "$f1" = "$f2" ] || { echo "sim-test FAILED: farm rows differ: '$f1' vs '$f2'"; exit 1; }
n=0
for f in "$dir"/pcap1/*.pcap; do
  cmp -s "$f" "$dir/pcap2/$(basename "$f")" || { echo "sim-test FAILED: $(basename "$f") differs"; exit 1; }
  n=$((n + 1))
done
[ "$n" -eq 56 ] || { echo "sim-test FAILED: $n captures, expected 56 (8 hosts)"; exit 1; }
bytes=$(cat "$dir"/pcap1/*.pcap | wc -c)
echo "identical: $l1; $n captures, $bytes bytes"
echo "sim-test determinism: PASSED"
