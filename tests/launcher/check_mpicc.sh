#!/bin/sh
# check_mpicc.sh MPICC INCLUDEDIR LIBDIR — the build-tree mpicc: -show, -compile_info,
# -link_info, compile-only (-c) against mpi.h, and a link + run if libsctpmpi is built.
set -u
mpicc=$1; incdir=$2; libdir=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_mpicc_XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

show=$(CC=cc "$mpicc" -show -O2 -o prog 'a b.c')
[ "$show" = "cc -I$incdir -O2 -o prog 'a b.c' -L$libdir -Wl,-rpath,$libdir -lsctpmpi" ] || fail "-show: $show"
show=$(CC=gcc "$mpicc" -show -c x.c)
[ "$show" = "gcc -I$incdir -c x.c" ] || fail "-show -c: $show"
"$mpicc" -compile_info | grep -q -- "-I$incdir" || fail "-compile_info"
"$mpicc" -compile_info | grep -q -- "-lsctpmpi" && fail "-compile_info has link flags"
"$mpicc" -link_info | grep -q -- "-Wl,-rpath,$libdir -lsctpmpi" || fail "-link_info"

cat >"$dir/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("hello %d\n", rank);
    MPI_Finalize();
    return 0;
}
C
(cd "$dir" && "$mpicc" -Wall -Werror -c hello.c -o hello.o) || fail "compile-only"
[ -f "$dir/hello.o" ] || fail "no object file"
if [ -f "$libdir/libsctpmpi.so" ]; then
  "$mpicc" "$dir/hello.o" -o "$dir/hello" || fail "link"
  readelf -d "$dir/hello" | grep -q "$libdir" || fail "no rpath to $libdir"
  echo "PASS: mpicc -show, -c, link (run is the MPI tests' business)"
else
  echo "PASS: mpicc -show, -c (libsctpmpi.so not built: link not tested)"
fi
