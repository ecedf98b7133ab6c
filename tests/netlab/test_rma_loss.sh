#!/usr/bin/env bash
# test_rma_loss.sh MPIEXEC STRESS OPS TRANSPORT — one-sided communication on emulated hosts:
# `mpiexec --netlab` places 4 ranks on 2 hosts (rank i on host i mod 2) joined by a 1 ms link
# that loses 2 % of the packets in each direction; the randomized RMA stress test (checked
# against its serial model) and the every-routine / every-mode test must both pass with exact
# results, the link counters must show that packets were really dropped, and no namespace of
# the run may be left, whatever happens.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
mpiexec=$1 stress=$2 ops=$3 transport=$4
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (namespaces and TUN devices)"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: ip netns does not work here"; exit 77; }
netlab=$(dirname "$mpiexec")/../netlab/netlab
[ -x "$netlab" ] || { echo "SKIP: netlab is not built ($netlab)"; exit 77; }
tmp=$(mktemp -d /tmp/sm-nlrma.XXXXXX)
cleanup() {
  local rc=$?
  "$netlab" gc >/dev/null 2>&1
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 1, "seed": 11, "defaults": { "delay_ms": 1, "loss": 0.02 } }
JSON
"$netlab" run "$tmp/topo.json" -- sh -c "
  echo \"netlab-run-dir=\$NETLAB_RUN\" &&
  RMA_STRESS_ROUNDS=20 '$mpiexec' --netlab '$tmp/topo.json' -n 4 --transport $transport --timeout 200 '$stress' &&
  '$mpiexec' --netlab '$tmp/topo.json' -n 4 --transport $transport --timeout 200 '$ops' &&
  '$netlab' stats" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { echo "FAIL: a job exited with $rc"; exit 1; }
if grep -q "^SKIPPED:" "$tmp/out"; then echo "SKIP: the library has no one-sided communication"; exit 77; fi
[ "$(grep -c " No Errors" "$tmp/out")" -eq 2 ] || { echo "FAIL: not both programs printed ' No Errors'"; exit 1; }
lost=0
for dir in "h0 dst=h1" "h1 dst=h0"; do
  l=$(awk -v d="src=${dir% *}" -v e="${dir#* }" '$1 == "link" && $3 == d && $4 == e { for (i = 1; i <= NF; i++) if ($i ~ /^drop_loss=/) { sub("drop_loss=", "", $i); print $i } }' "$tmp/out")
  lost=$((lost + ${l:-0}))
done
[ "$lost" -gt 0 ] || { echo "FAIL: the 2% loss dropped nothing (no traffic crossed the link?)"; exit 1; }
# this run's namespaces (named <prefix>-<host>, prefix = the run directory's name) must be gone;
# other runs on the machine may come and go meanwhile
prefix=$(sed -n 's/^netlab-run-dir=//p' "$tmp/out" | head -1)
prefix=${prefix##*/}
[ -n "$prefix" ] || { echo "FAIL: the run did not report its netlab run directory"; exit 1; }
left=$(ip netns list | grep -- "^$prefix-" || true)
[ -z "$left" ] || { echo "FAIL: namespaces of run $prefix left behind: $left"; exit 1; }
echo "rma on netlab passed: exact results with $lost packets dropped"
