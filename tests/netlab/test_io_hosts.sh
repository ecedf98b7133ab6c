#!/usr/bin/env bash
# test_io_hosts.sh MPIEXEC TRANSPORT PROG... — MPI-IO across emulated hosts: `mpiexec --netlab`
# places 4 ranks on 2 hosts (rank i on host i mod 2, all sharing this machine's file system,
# which is what docs/io.md assumes of a multi-host job) and every program given (the shared
# file pointer and atomic-mode tests) must print " No Errors"; no namespace of the run may be
# left.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
mpiexec=$1 transport=$2
shift 2
NETLAB=${NETLAB:-$(dirname "$mpiexec")/../netlab/netlab}
. "$(dirname "$0")/lib.sh"
[ -x "$NETLAB" ] || skip "netlab is not built ($NETLAB)"
cat >"$T/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 1, "seed": 5, "defaults": { "delay_ms": 1 } }
JSON
cmds="echo \"netlab-run-dir=\$NETLAB_RUN\""
for prog in "$@"; do
  cmds="$cmds && '$mpiexec' --netlab '$T/topo.json' -n 4 --transport $transport --timeout 120 '$prog'"
done
"$NETLAB" run "$T/topo.json" -- sh -c "$cmds" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 0 ] || fail "a job exited with $rc"
[ "$(grep -c " No Errors" "$T/out")" -eq $# ] || fail "not every program printed ' No Errors'"
mpi_run_clean "$T/out"
echo "MPI-IO across emulated hosts passed"
