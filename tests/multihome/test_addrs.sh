#!/usr/bin/env bash
# test_addrs.sh MPIEXEC PROG NETLAB — which addresses a rank binds, 2 hosts x 2
# rails: (1) SCTPMPI_SCTP_ADDRS naming a multihome file ("host addr ..." lines, picked by
# NETLAB_HOST) that gives each host only its rail-1 address: the stream must cross rail 1 and
# leave rail 0 idle; (2) SCTPMPI_SCTP_BINDALL=1: each rank binds both rails and its management
# address (multihomed mode, three paths to its peer).
. "$(dirname "$0")/mh_lib.sh" "$@"
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5 } }
J
cat >"$T/multihome.txt" <<'F'
# host  addresses
h0 198.18.1.1
h1 198.18.1.2
F
run_job "$T/topo.json" 60 SCTPMPI_SCTP_ADDRS="$T/multihome.txt" SCTPMPI_SCTP_DEBUG=1 \
  -- -n 2000 -p 0 || fail "netlab run failed"
grep -q " No Errors" "$T/out" || fail "job with the multihome file failed"
grep -q "rank 0: AF_CONN mode on 198.18.1.1," "$T/out" || fail "rank 0 did not bind 198.18.1.1 alone"
grep -q "rank 1: AF_CONN mode on 198.18.1.2," "$T/out" || fail "rank 1 did not bind 198.18.1.2 alone"
r0=$(link_field 0 h0 h1 fwd_bytes) r1=$(link_field 1 h0 h1 fwd_bytes)
[ "${r1:-0}" -gt 1000000 ] || fail "rail 1 carried only ${r1:-0} bytes"
[ "${r0:-0}" -lt 10000 ] || fail "rail 0 carried ${r0} bytes though no rank bound it"
echo "ok: multihome file: rail 1 carried $r1 bytes, rail 0 $r0"
run_job "$T/topo.json" 60 SCTPMPI_SCTP_BINDALL=1 SCTPMPI_SCTP_DEBUG=1 SCTPMPI_STATS=1 \
  -- -n 2000 -p 0 || fail "netlab run failed"
grep -q " No Errors" "$T/out" || fail "job with SCTPMPI_SCTP_BINDALL=1 failed"
grep "rank 0: multihomed (AF_INET) mode on " "$T/out" | grep "198.18.0.1" | grep "198.18.1.1" |
  grep -q "198.19" ||
  fail "rank 0 did not bind both rails and its management address"
# (grep -o: lines of the two ranks' statistics may interleave on the shared stderr)
paths=$(grep -o "sctpmpi\[0\]   path [0-9] to [0-9.]*" "$T/out" | sort -u | wc -l)
[ "$paths" = 3 ] || fail "rank 0 shows $paths paths, not 3"
echo "PASS: SCTPMPI_SCTP_ADDRS file and SCTPMPI_SCTP_BINDALL bind what they say"
