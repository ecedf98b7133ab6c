#!/usr/bin/env bash
# test_io_hosts.sh MPIEXEC TRANSPORT PROG... — MPI-IO across emulated hosts: `mpiexec --netlab`
# places 4 ranks on 2 hosts (rank i on host i mod 2, all sharing this machine's file system,
# which is what docs/io.md assumes of a multi-host job) and every program given (the shared
# file pointer and atomic-mode tests) must print " No Errors"; no namespace of the run may be
# left.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
mpiexec=$1 transport=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (namespaces and TUN devices)"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: ip netns does not work here"; exit 77; }
netlab=$(dirname "$mpiexec")/../netlab/netlab
[ -x "$netlab" ] || { echo "SKIP: netlab is not built ($netlab)"; exit 77; }
tmp=$(mktemp -d /tmp/sm-nlio.XXXXXX)
cleanup() {
  local rc=$?
  "$netlab" gc >/dev/null 2>&1
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 1, "seed": 5, "defaults": { "delay_ms": 1 } }
JSON
cmds="echo \"netlab-run-dir=\$NETLAB_RUN\""
for prog in "$@"; do
  cmds="$cmds && '$mpiexec' --netlab '$tmp/topo.json' -n 4 --transport $transport --timeout 120 '$prog'"
done
"$netlab" run "$tmp/topo.json" -- sh -c "$cmds" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { echo "FAIL: a job exited with $rc"; exit 1; }
[ "$(grep -c " No Errors" "$tmp/out")" -eq $# ] || { echo "FAIL: not every program printed ' No Errors'"; exit 1; }
prefix=$(sed -n 's/^netlab-run-dir=//p' "$tmp/out" | head -1)
prefix=${prefix##*/}
[ -n "$prefix" ] || { echo "FAIL: the run did not report its netlab run directory"; exit 1; }
left=$(ip netns list | grep -- "^$prefix-" || true)
[ -z "$left" ] || { echo "FAIL: namespaces of run $prefix left behind: $left"; exit 1; }
echo "MPI-IO across emulated hosts passed"
