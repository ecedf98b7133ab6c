#!/bin/sh
# wrapper_check.sh WRAPPER MPIEXEC SOURCE OUTDIR — compiles SOURCE with the Fortran compiler
# wrapper WRAPPER (mpifort, mpif90 or mpif77) and runs it on 2 ranks.
# SM_MPICC_EXTRA: extra compiler flags (-fsanitize=address,undefined when libsctpmpi was built
# with sanitizers: an uninstrumented program cannot load an ASan library).
set -e
wrapper=$1 mpiexec=$2 src=$3 out=$4
mkdir -p "$out"
# shellcheck disable=SC2086
"$wrapper" ${SM_MPICC_EXTRA:-} -o "$out/prog" "$src"
"$mpiexec" -n 2 --timeout 120 "$out/prog"
