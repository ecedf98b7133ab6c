#!/bin/sh
# failover.sh MPIEXEC PROG TOPO — 2 hosts on 2 rails; the topology takes rail 0 down at 100 ms
# of virtual time: the ping-pong must finish (the SCTP associations fail over to rail 1) and
# both rails' captures must hold traffic (rail 0 before the failure, rail 1 after it).
dir=$(mktemp -d /tmp/sim-fo-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$(SCTPMPI_SCTP_FAILOVER=lan "$1" --sim "$3" --sim-pcap "$dir" -n 2 --timeout 120 "$2" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "sim-test FAILED: exit status $rc"; exit 1; }
for f in rail0-a-b rail1-a-b; do
  n=$(wc -c < "$dir/$f.pcap")
  echo "$f.pcap: $n bytes"
  [ "$n" -gt 100000 ] || { echo "sim-test FAILED: $f carried almost nothing"; exit 1; }
done
echo "$out" | grep -q "^sim: virtual time" || { echo "sim-test FAILED: no simulator summary"; exit 1; }
echo "sim-test failover: PASSED"
