#!/bin/sh
# mpicc_check.sh — builds a small MPI program with our mpicc wrapper (build-tree variant) and runs
# it with our mpiexec on 2 ranks: checks that the wrapper finds mpi.h and links libsctpmpi, and
# that the result runs without LD_LIBRARY_PATH.
# usage: mpicc_check.sh MPICC MPIEXEC TRANSPORT SOURCE
# SM_MPICC_EXTRA: extra compiler flags (e.g. -fsanitize=address,undefined when libsctpmpi was
# built with sanitizers: an uninstrumented program cannot load an ASan library).
set -u
mpicc=$1; mpiexec=$2; transport=$3; src=$4
[ -x "$mpicc" ] || { echo "sm-test FAILED: no mpicc at $mpicc"; exit 1; }
[ -x "$mpiexec" ] || { echo "sm-test FAILED: no mpiexec at $mpiexec"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm-mpicc.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
# -Werror: the program and our mpi.h must compile clean under the wrapper's default flags
extra=${SM_MPICC_EXTRA:-}
# shellcheck disable=SC2086
if ! "$mpicc" $extra -std=c11 -Wall -Wextra -Werror -o "$dir/hello" "$src"; then
  echo "sm-test FAILED: mpicc could not build $src"; exit 1
fi
# separate compile and link steps too
# shellcheck disable=SC2086
if ! "$mpicc" $extra -c -o "$dir/hello.o" "$src" || ! "$mpicc" $extra -o "$dir/hello2" "$dir/hello.o"; then
  echo "sm-test FAILED: mpicc -c / link in two steps failed"; exit 1
fi
unset LD_LIBRARY_PATH
"$mpiexec" -n 2 --transport "$transport" --timeout 60 "$dir/hello" || {
  echo "sm-test FAILED: the mpicc-built program failed (status $?)"; exit 1; }
"$mpiexec" -n 2 --transport "$transport" --timeout 60 "$dir/hello2" || {
  echo "sm-test FAILED: the two-step mpicc-built program failed (status $?)"; exit 1; }
