#!/bin/sh
# check_failure.sh CASE MPIEXEC PMI_TEST — a failing job must end quickly, non-zero, with a
# message naming the rank, and leave no process behind (ranks and their children write their
# pids into a temp dir via SM_PMI_TEST_PIDDIR; we check every one of them is gone).
# CASE: exit3 | abort | nofinalize | timeout | signal
set -u
case=$1; mpiexec=$2; prog=$3
np=4
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_launcher_XXXXXX")
cleanup() {
  # only processes that are still ours (pids may have been reused by now)
  for f in "$dir"/*.pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q pmi_test && kill -9 "$p" 2>/dev/null
  done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL ($case): $*"; echo "--- mpiexec stderr:"; cat "$dir/stderr" 2>/dev/null; exit 1; }

# alive PID: exists and is not a zombie
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

export SM_PMI_TEST_PIDDIR="$dir"
# SM_MPIEXEC_OPTS: extra mpiexec options (the multi-host variants pass a host list)
opts="${SM_MPIEXEC_OPTS:-}"
case $case in
  exit3)      export SM_PMI_TEST_MODE=exit3;      want_rc=3;   want_msg="rank 3 exited with code 3" ;;
  abort)      export SM_PMI_TEST_MODE=abort;      want_rc=7;   want_msg="rank 3 called MPI_Abort with code 7" ;;
  nofinalize) export SM_PMI_TEST_MODE=nofinalize; want_rc=any; want_msg="rank 3 exited without MPI_Finalize" ;;
  timeout)    export SM_PMI_TEST_MODE=hang;       want_rc=124; want_msg="timed out"; opts="$opts --timeout 2" ;;
  signal)     export SM_PMI_TEST_MODE=hang;       want_rc=143; want_msg="received signal 15" ;;
  *) echo "unknown case $case"; exit 2 ;;
esac

start=$(date +%s.%N)
# shellcheck disable=SC2086
"$mpiexec" -n $np $opts "$prog" >"$dir/stdout" 2>"$dir/stderr" &
launcher=$!
( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 30 & s=$!; wait $s; kill -9 $launcher ) >/dev/null 2>&1 &
watchdog=$!
if [ "$case" = signal ]; then
  # wait until every rank and every rank's child has written its pid, then TERM mpiexec
  i=0
  while [ "$(ls "$dir" | grep -c '\.pid$')" -lt $((2 * np)) ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  kill -TERM $launcher
fi
wait $launcher
rc=$?
end=$(date +%s.%N)
kill $watchdog 2>/dev/null
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')

[ "$rc" -ne 0 ] || fail "mpiexec exited 0"
[ "$rc" -ne 137 ] || fail "mpiexec hung (killed by the test's watchdog)"
[ "$want_rc" = any ] || [ "$rc" -eq "$want_rc" ] || fail "exit code $rc, wanted $want_rc"
awk -v e="$elapsed" 'BEGIN { exit !(e < 10) }' || fail "took ${elapsed}s (limit 10 s)"
grep -q "mpiexec: .*$want_msg" "$dir/stderr" || fail "no message matching '$want_msg'"

npids=$(ls "$dir" | grep -c '\.pid$')
[ "$npids" -eq $((2 * np)) ] || fail "expected $((2 * np)) pid files, found $npids"
# killing is asynchronous to mpiexec's exit only for SIGKILLed grandchildren: allow 2 s
i=0
while :; do
  left=""
  for f in "$dir"/*.pid; do
    p=$(cat "$f"); alive "$p" && left="$left $(basename "$f" .pid)=$p"
  done
  [ -z "$left" ] && break
  [ $i -ge 20 ] && fail "processes of the job still alive:$left"
  sleep 0.1; i=$((i + 1))
done
echo "PASS ($case): exit $rc in ${elapsed}s; $(grep 'mpiexec:' "$dir/stderr" | head -n 1)"
