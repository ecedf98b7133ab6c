#!/usr/bin/env bash
# test_failover.sh MPIEXEC PROG NETLAB — multihoming test (a): 2 hosts x 2 rails, SCTP multihomed
# with SCTPMPI_SCTP_FAILOVER=lan; a checked stream of 10,000 messages from rank 0 to rank 1
# while netlab takes rail 0 down for good 2.5 s after the network came up (mid-stream).  Every
# message must arrive once and intact, the longest gap between deliveries must stay under 2 s
# (printed), rail 0 must have dropped traffic and rail 1 carried the rest.
. "$(dirname "$0")/mh_lib.sh" "$@"
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5 },
  "events": [ {"at": 2.5, "do": "down h0-h1@0"} ] }
J
run_job "$T/topo.json" 120 SCTPMPI_SCTP_FAILOVER=lan SCTPMPI_SCTP_DEBUG=1 SCTPMPI_STATS=1 \
  -- -n 10000 -p 400 -g 2.0 || fail "netlab run failed"
grep -q "rank 1: 10000 of 10000 messages intact and in order, 0 bad" "$T/out" ||
  fail "the stream did not arrive whole"
grep -q " No Errors" "$T/out" || fail "rank 0 did not report ' No Errors'"
gap=$(sed -n 's/.*longest gap between deliveries \([0-9.]*\) s.*/\1/p' "$T/out" | head -1)
down=$(link_field 0 h0 h1 drop_down)
moved=$(link_field 1 h0 h1 fwd_bytes)
[ "${down:-0}" -gt 0 ] || fail "rail 0 dropped nothing: the failure did not happen mid-stream"
[ "${moved:-0}" -gt 1000000 ] || fail "rail 1 carried only ${moved:-0} bytes: no failover"
grep -q "path to rank 1 via 198.18.0.2: unreachable" "$T/out" ||
  fail "rank 0 did not log rail 0's path as unreachable (backend ${SCTPMPI_SCTP_BACKEND:-native})"
echo "PASS: 10,000 messages intact across the failure of rail 0; longest gap ${gap} s" \
  "(rail 0 drop_down=$down, rail 1 carried $moved bytes)"
