#!/usr/bin/env bash
# test_rma_loss.sh MPIEXEC STRESS OPS TRANSPORT — one-sided communication on emulated hosts:
# `mpiexec --netlab` places 4 ranks on 2 hosts (rank i on host i mod 2) joined by a 1 ms link
# that loses 2 % of the packets in each direction; the randomized RMA stress test (checked
# against its serial model) and the every-routine / every-mode test must both pass with exact
# results, the link counters must show that packets were really dropped, and no namespace of
# the run may be left, whatever happens.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
mpiexec=$1 stress=$2 ops=$3 transport=$4
NETLAB=${NETLAB:-$(dirname "$mpiexec")/../netlab/netlab}
. "$(dirname "$0")/lib.sh"
[ -x "$NETLAB" ] || skip "netlab is not built ($NETLAB)"
cat >"$T/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 1, "seed": 11, "defaults": { "delay_ms": 1, "loss": 0.02 } }
JSON
"$NETLAB" run "$T/topo.json" -- sh -c "
  echo \"netlab-run-dir=\$NETLAB_RUN\" &&
  RMA_STRESS_ROUNDS=20 '$mpiexec' --netlab '$T/topo.json' -n 4 --transport $transport --timeout 200 '$stress' &&
  '$mpiexec' --netlab '$T/topo.json' -n 4 --transport $transport --timeout 200 '$ops' &&
  '$NETLAB' stats" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 0 ] || fail "a job exited with $rc"
if grep -q "^SKIPPED:" "$T/out"; then skip "the library has no one-sided communication"; fi
[ "$(grep -c " No Errors" "$T/out")" -eq 2 ] || fail "not both programs printed ' No Errors'"
lost=0
for dir in "h0 dst=h1" "h1 dst=h0"; do
  l=$(awk -v d="src=${dir% *}" -v e="${dir#* }" '$1 == "link" && $3 == d && $4 == e { for (i = 1; i <= NF; i++) if ($i ~ /^drop_loss=/) { sub("drop_loss=", "", $i); print $i } }' "$T/out")
  lost=$((lost + ${l:-0}))
done
[ "$lost" -gt 0 ] || fail "the 2% loss dropped nothing (no traffic crossed the link?)"
mpi_run_clean "$T/out"
echo "rma on netlab passed: exact results with $lost packets dropped"
