#!/usr/bin/env bash
# test_loaded.sh MPIEXEC PROG NETLAB — the failover defaults on a loaded node: 2 hosts x 2 rails
# (0.1 ms each way, no failure), the transport's defaults (no SCTPMPI_SCTP_FAILOVER preset), two
# busy `yes > /dev/null` loops started by this test (and killed by their pids at the end) beside
# a long checked stream of messages from rank 0 to rank 1.  Every message must arrive once and
# intact, neither rank may declare a path unreachable or lose its association (no spurious
# failover, no abort); potentially-failed episodes (data moved to the other rail for a while,
# harmless) are counted and printed.
. "$(dirname "$0")/mh_lib.sh" "$@"
hogs=()
stop_hogs() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${hogs[@]}"; do wait "$p" 2>/dev/null; done
  hogs=()
}
trap 'stop_hogs; cleanup' EXIT
for i in 1 2; do
  yes >/dev/null &
  hogs+=($!)
done
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.1 } }
J
run_job "$T/topo.json" 150 SCTPMPI_SCTP_DEBUG=1 SCTPMPI_STATS=1 \
  -- -n "${MH_COUNT:-15000}" -p 200 -g 5.0 || fail "netlab run failed"
stop_hogs
grep -q "rank 1: ${MH_COUNT:-15000} of ${MH_COUNT:-15000} messages intact and in order, 0 bad" \
  "$T/out" || fail "the stream did not arrive whole"
grep -q " No Errors" "$T/out" || fail "rank 0 did not report ' No Errors'"
grep -E "path to rank [01] via .*: unreachable" "$T/out" &&
  fail "a path was declared unreachable on a healthy network (spurious failover)"
# native: "association N (rank R) down, reason K" with K = 1 a graceful SHUTDOWN; usrsctp:
# "association ... lost"; the MPI error of a dead peer in either
grep -E "down, reason [2-9]|association .* lost|aborting the association|retransmissions exhausted" \
  "$T/out" && fail "an association was aborted on a healthy network"
pf=$(grep -Ec "path to rank [01] via .*: potentially-failed" "$T/out")
gap=$(sed -n 's/.*longest gap between deliveries \([0-9.]*\) s.*/\1/p' "$T/out" | head -1)
secs=$(sed -n 's/^rank 0: sent [0-9]* messages in \([0-9.]*\) s.*/\1/p' "$T/out" | head -1)
echo "PASS: ${MH_COUNT:-15000} messages intact in ${secs} s beside 2 busy loops, no path" \
  "unreachable, no abort; potentially-failed episodes $pf, longest gap ${gap} s," \
  "load $(cut -d' ' -f1 /proc/loadavg)"
