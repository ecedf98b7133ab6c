#!/bin/sh
# check_install.sh BUILD_DIR — installs into a temporary prefix and checks the layout:
# bin/mpicc, bin/mpiexec, bin/mpirun (-> mpiexec), bin/sctpmpi_proxy (used by a multi-host
# run), and, when libsctpmpi.so is built,
# bin/sctpmpi_info, include/mpi.h and lib/libsctpmpi.so with a program compiled by the installed mpicc.
set -u
build=$1
prefix=$(mktemp -d "${TMPDIR:-/tmp}/sm_prefix_XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
full=0
if [ -f "$build/src/libsctpmpi.so" ]; then
  full=1
  cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"
else
  for d in tools/mpiexec tools/mpicc; do
    cmake -DCMAKE_INSTALL_PREFIX="$prefix" -P "$build/$d/cmake_install.cmake" >/dev/null || fail "install $d"
  done
fi
for f in mpicc mpiexec mpirun sctpmpi_proxy; do [ -x "$prefix/bin/$f" ] || fail "bin/$f missing"; done
[ "$(readlink "$prefix/bin/mpirun")" = mpiexec ] || fail "mpirun is not a link to mpiexec"
[ "$("$prefix/bin/mpirun" -n 2 echo hi | tr -d '\n')" = hihi ] || fail "installed mpirun does not run"
# a multi-host job finds the installed proxy beside the installed mpiexec
out=$("$prefix/bin/mpiexec" --launcher-rsh "env SM_FAKE_HOST=%h" -H hostA,hostB -l \
  sh -c 'echo $SM_FAKE_HOST' | sort | tr '\n' ' ')
[ "$out" = "[0] hostA [1] hostB " ] || fail "installed mpiexec with proxies: '$out'"
show=$("$prefix/bin/mpicc" -show -c x.c)
[ "$show" = "${CC:-cc} -I$prefix/include -c x.c" ] || fail "installed mpicc -show: $show"
if [ $full -eq 1 ]; then
  [ -f "$prefix/include/mpi.h" ] || fail "include/mpi.h missing"
  "$prefix/bin/sctpmpi_info" --parsable | grep -qx 'backend:native' || fail "installed sctpmpi_info"
  ls "$prefix"/lib*/libsctpmpi.so >/dev/null 2>&1 || fail "lib/libsctpmpi.so missing"
  printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' >"$prefix/t.c"
  "$prefix/bin/mpicc" "$prefix/t.c" -o "$prefix/t" || fail "installed mpicc cannot build a program"
  echo "PASS: full install (bin, include, lib) and installed mpicc builds a program"
else
  echo "PASS: tools install (libsctpmpi.so not built: include/lib not checked)"
fi
