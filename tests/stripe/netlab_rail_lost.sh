#!/usr/bin/env bash
# netlab_rail_lost.sh MPIEXEC PROG NETLAB — a lost rail under SCTP striping
# (SCTPMPI_SCTP_STRIPE=1, lan preset): 2 hosts x 2 rails, the checked stream of
# tests/multihome/mh_stream.c with its large messages striped over both rails
# (SCTPMPI_STRIPE_MIN=64k); rail 1 goes down for good 2 s after the network came up.  Striping
# has no failover: the peer is lost, and the job must not hang — both ranks' MPI calls return an
# error (MPI_ERRORS_RETURN) within 5 s of the last success (docs/sctp-native.md "Striping over
# rails"), and the error names the rail.  Shares tests/multihome/mh_lib.sh.
. "$(dirname "$0")/../multihome/mh_lib.sh" "$@"
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5 },
  "events": [ {"at": 2.0, "do": "down h0-h1@1"} ] }
J
run_job "$T/topo.json" 60 SCTPMPI_SCTP_BACKEND=native SCTPMPI_SCTP_STRIPE=1 \
  SCTPMPI_SCTP_FAILOVER=lan SCTPMPI_STRIPE_MIN=65536 -- -n 1000000 -p 400 -f 5
for r in 0 1; do
  grep -q "rank $r: MPI error after [0-9]* messages, [0-9.]* s after the last success" "$T/out" ||
    fail "rank $r got no MPI error (hung, or the stream never failed)"
done
grep -q "FAIL" "$T/out" && fail "a rank reported a failure"
grep -q " No Errors" "$T/out" || fail "rank 0 did not report ' No Errors'"
grep -q "job timed out" "$T/out" && fail "mpiexec had to kill the job"
grep -q "lost the connection to rank [01]: rail [01] (of 2)" "$T/out" ||
  fail "no rank named the lost rail in its error"
moved=$(link_field 1 h0 h1 fwd_bytes)
[ "${moved:-0}" -gt 1000000 ] || fail "rail 1 carried ${moved:-0} bytes before it died: not striped"
echo "PASS: rail 1 died under striping; both ranks got an MPI error within the bound:" \
  "$(grep -o 'rank [01]: MPI error after [0-9]* messages, [0-9.]* s' "$T/out" | tr '\n' ';')" \
  "(rail 1 carried $moved bytes first)"
