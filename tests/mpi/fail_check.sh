#!/bin/sh
# fail_check.sh — runs an MPI job that is meant to fail (abort_test, early_exit, rma_peer_exit)
# and checks the launcher's behaviour:
#   1. it exits non-zero within DEADLINE seconds (SM_FAIL_DEADLINE, default 10);
#   2. its output names the failing rank (FAILRANK);
#   3. every process of the job (pids recorded by the programs in $SM_TEST_PIDDIR) is gone;
#   4. all NP ranks did start (NP pid files), and no rank got past its blocking receive.
# usage: fail_check.sh NP FAILRANK launcher [launcher args...] program
# e.g.   fail_check.sh 4 1 build/tools/mpiexec/mpiexec -n 4 --transport tcp build/tests/mpi/abort_test
# Prints "sm-test fail_check: PASSED" on success, "sm-test FAILED: <reason>" and exits 1 otherwise.
set -u
np=$1; failrank=$2; shift 2
deadline=${SM_FAIL_DEADLINE:-10}
piddir=$(mktemp -d "${TMPDIR:-/tmp}/sm-fail.XXXXXX") || exit 1
out=$piddir/output
SM_TEST_PIDDIR=$piddir; export SM_TEST_PIDDIR

killall_recorded() {
  for f in "$piddir"/*.pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f" 2>/dev/null)
    case $p in ''|*[!0-9]*) continue ;; esac
    kill -9 "$p" 2>/dev/null
  done
}
cleanup() { killall_recorded; rm -rf "$piddir"; }
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

fail() {
  echo "sm-test FAILED: $*"
  echo "----- launcher output -----"
  cat "$out" 2>/dev/null
  echo "---------------------------"
  exit 1
}

start=$(date +%s)
# The launcher gets a hard limit a bit beyond the deadline, so a hang cannot block ctest.
timeout -k 3 $((deadline + 20)) "$@" >"$out" 2>&1
rc=$?
end=$(date +%s)
elapsed=$((end - start))
cat "$out"
echo "sm-test fail_check: launcher exit status $rc after ${elapsed}s"

[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "launcher did not exit (killed by timeout after $((deadline + 20))s)"
[ "$rc" -ne 0 ] || fail "launcher exited with status 0 for a failed job"
[ "$elapsed" -le "$deadline" ] || fail "launcher took ${elapsed}s to exit (limit ${deadline}s)"
# (SM_FAIL_SKIP_RANK_NAME=1 skips this for foreign launchers: Open MPI and MPICH name the
#  process of an early exit by pid or process name only)
if [ "${SM_FAIL_SKIP_RANK_NAME:-0}" != 1 ]; then
  grep -v '^sm-test' "$out" | grep -Eiq "rank[^0-9a-z]{0,3}$failrank([^0-9]|\$)" ||
    fail "launcher output does not name rank $failrank"
fi
! grep -q "sm-test UNEXPECTED" "$out" || fail "a rank got past a receive that cannot complete"

n=0
for f in "$piddir"/*.pid; do [ -f "$f" ] && n=$((n + 1)); done
[ "$n" -eq "$np" ] || fail "only $n of $np ranks recorded their pid"

# The launcher has exited: give the system a moment to reap, then no rank may be left.
left=""
i=0
while [ $i -lt 20 ]; do
  left=""
  for f in "$piddir"/*.pid; do
    p=$(cat "$f")
    if kill -0 "$p" 2>/dev/null; then
      # a zombie whose parent has not reaped it yet is dead for our purpose
      st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
      [ "$st" = "Z" ] || left="$left $(basename "$f" .pid):$p"
    fi
  done
  [ -z "$left" ] && break
  sleep 0.25
  i=$((i + 1))
done
[ -z "$left" ] || fail "processes of the job still running after the launcher exited (rank:pid):$left"
echo "sm-test fail_check: PASSED"
exit 0
