#!/usr/bin/env bash
# test_rail_lost.sh MPIEXEC PROG NETLAB — multihoming test (b): 2 hosts with ONE rail, lan preset;
# the rail goes down for good 2 s after the network came up, mid-stream.  The job must not hang:
# with MPI_ERRORS_RETURN both ranks' MPI calls return an error within the bound of
# docs/transport-sctp.md ("A job whose only path dies": at most 2.4 s with the lan preset; the
# test allows 5 s for a loaded machine), and MPI_Finalize then returns on both ranks (with an
# error: the peer is lost) instead of waiting for the lost peer.
. "$(dirname "$0")/mh_lib.sh" "$@"
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 1, "defaults": { "delay_ms": 0.5 },
  "events": [ {"at": 2.0, "do": "down h0-h1@0"} ] }
J
start=$(date +%s.%N)
run_job "$T/topo.json" 60 SCTPMPI_SCTP_FAILOVER=lan -- -n 1000000 -p 400 -f 5
end=$(date +%s.%N)
for r in 0 1; do
  grep -q "rank $r: MPI error after [0-9]* messages, [0-9.]* s after the last success" "$T/out" ||
    fail "rank $r got no MPI error (hung, or the stream never failed)"
done
for r in 0 1; do
  grep -q "rank $r: MPI_Finalize returned" "$T/out" || fail "rank $r: MPI_Finalize did not return"
done
grep -q "FAIL" "$T/out" && fail "a rank reported a failure"
grep -q " No Errors" "$T/out" || fail "rank 0 did not report ' No Errors'"
grep -q "job timed out" "$T/out" && fail "mpiexec had to kill the job"
wall=$(echo "$end - $start" | bc)
echo "PASS: the only rail died; both ranks got an MPI error within the bound:" \
  "$(grep -o 'rank [01]: MPI error after [0-9]* messages, [0-9.]* s' "$T/out" | tr '\n' ';')" \
  "$(grep -o 'rank [01]: MPI_Finalize returned [^;]*' "$T/out" | tr '\n' ';')" \
  "job over after ${wall} s"
