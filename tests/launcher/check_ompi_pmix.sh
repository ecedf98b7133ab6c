#!/bin/sh
# check_ompi_pmix.sh TRANSPORT PT2PT COLL ABORT — our MPI programs under Open MPI's
# `mpirun.openmpi` (its PMIx server), 4 oversubscribed ranks over TRANSPORT (tcp|sctp):
#   PT2PT and COLL must print " No Errors", exit 0, and boot through PMIx with the 4 ranks
#   seen as local (checked in the SCTPMPI_VERBOSE=3 boot line);
#   ABORT (rank 1 calls MPI_Abort(7) while the others block) must end the job with status 7
#   within 15 s and leave none of its processes behind.
# Exits 77 (skip) when mpirun.openmpi is missing or the library was built without PMIx.
set -u
tp=$1; pt2pt=$2; coll=$3; abortp=$4
mpirun=$(command -v mpirun.openmpi) || { echo "SKIP: mpirun.openmpi is not installed (openmpi-bin)"; exit 77; }
if ! ldd "$pt2pt" | grep -q libpmix; then
  echo "SKIP: libsctpmpi was built without PMIx (install libpmix-dev and rebuild)"; exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_ompi_pmix_XXXXXX")
cleanup() {
  for f in "$dir"/*.pid; do # only processes that are still ours
    [ -f "$f" ] || continue
    p=$(cat "$f")
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "$(basename "$abortp")" && kill -9 "$p" 2>/dev/null
  done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$dir/out" 2>/dev/null; exit 1; }
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

run() { # expected-status program [extra mpirun args]
  want=$1; prog=$2; shift 2
  echo "\$ mpirun.openmpi --oversubscribe -np 4 -x SCTPMPI_TRANSPORT=$tp $* $(basename "$prog")"
  start=$(date +%s)
  timeout 40 "$mpirun" --oversubscribe -np 4 -x SCTPMPI_TRANSPORT="$tp" "$@" "$prog" >"$dir/out" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  echo "  exit status $rc after ${took} s"
  [ "$rc" = "$want" ] || fail "$(basename "$prog") exited $rc, expected $want"
}

run 0 "$pt2pt" -x SCTPMPI_VERBOSE=3
grep -q "^ No Errors" "$dir/out" || fail "pt2pt did not print No Errors"
n=$(grep -c "booted through pmix: rank [0-3] of 4, local rank [0-3] of 4" "$dir/out")
[ "$n" = 4 ] || fail "expected 4 ranks booted through PMIx with 4 local ranks, saw $n"
grep "booted through" "$dir/out" | sort | sed 's/^/  /'
grep "^ No Errors" "$dir/out"

run 0 "$coll"
grep -q "^ No Errors" "$dir/out" || fail "collective did not print No Errors"
grep "^ No Errors" "$dir/out"

SM_TEST_PIDDIR=$dir; export SM_TEST_PIDDIR
run 7 "$abortp" -x SM_TEST_PIDDIR
[ "$took" -le 15 ] || fail "the aborted job took ${took} s to end"
grep -q "MPI_Abort called with error code 7" "$dir/out" || fail "no MPI_Abort message"
grep "MPI_Abort called" "$dir/out" | sed 's/^/  /'
sleep 1
for f in "$dir"/*.pid; do
  [ -f "$f" ] || fail "the abort test wrote no pid files"
  p=$(cat "$f")
  if alive "$p" && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "$(basename "$abortp")"; then
    fail "rank process $p outlived the aborted job"
  fi
done
echo "PASS: pt2pt, collective and MPI_Abort under mpirun.openmpi (PMIx) over $tp"
