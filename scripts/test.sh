#!/usr/bin/env bash
# test.sh — install, build and run the whole test suite: the normal build, then the same suite
# built with AddressSanitizer + UndefinedBehaviorSanitizer.  Prints ctest's summaries; exits
# non-zero if any test failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" || exit 1
export HWLOC_COMPONENTS=-gl OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rc=0
"$root/scripts/build.sh" "$root/build" || exit 1
(cd "$root/build" && ctest --output-on-failure -j2 --timeout 600) || rc=1
# the SCTP tests once more over the usrsctp backend (the default backend is our own engine)
if [ -e /usr/include/usrsctp.h ]; then
  echo "== the SCTP tests again with SCTPMPI_SCTP_BACKEND=usrsctp"
  (cd "$root/build" && SCTPMPI_SCTP_BACKEND=usrsctp \
     ctest --output-on-failure -j2 --timeout 600 -R sctp -E sctp_native -LE netlab) || rc=1
fi
"$root/scripts/build.sh" "$root/build-asan" -DSCTPMPI_SANITIZE=ON || exit 1
# the sanitizer pass runs the unit, launcher, transport and MPI tests (netlab is not ASan's job)
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
   ctest --output-on-failure -j2 --timeout 600 -LE netlab) || rc=1
# ---- MPI_THREAD_MULTIPLE under ThreadSanitizer (docs/threads.md): only the library, the
# launcher and the threaded tests are built, and only their 2-rank runs (about a minute)
echo "== the threaded tests under ThreadSanitizer"
cmake -S "$root" -B "$root/build-tsan" -G Ninja -DSCTPMPI_TSAN=ON >/dev/null || exit 1
ninja -C "$root/build-tsan" -j2 sctpmpi mpiexec thr_p2p thr_coll thr_comm thr_blocked \
  thr_wildcard thr_mprobe thr_greq || exit 1
(cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=0 \
   ctest --output-on-failure -j2 --timeout 300 -L threads -R np2) || rc=1
exit $rc
