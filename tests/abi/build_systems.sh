#!/usr/bin/env bash
# build_systems.sh MODE SRCDIR BINDIR WORKDIR — build a program the way users do and run it:
#   mpicxx     C++ with the build tree's mpicxx and mpic++
#   pkgconfig  C and C++ with `pkg-config --cflags --libs sctpmpi` and `mpi` (build tree)
#   install    `cmake --install` into a fresh prefix, then mpicc, mpicxx and pkg-config from it
#   cmake      a CMake project with find_package(MPI) given the installed mpicc / mpicxx
# Each program runs under mpiexec with 3 ranks and must print " No Errors".
set -euo pipefail
mode=$1 src=$2 bin=$3 work=$4
rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
mpiexec=$bin/tools/mpiexec/mpiexec
run() { # run EXE: 3 ranks, both transports
  for tp in tcp sctp; do
    out=$("$mpiexec" -n 3 --transport $tp --timeout 60 "$@" 2>&1) || { echo "$out"; echo "FAILED: $* over $tp"; exit 1; }
    grep -q " No Errors" <<<"$out" || { echo "$out"; echo "FAILED: $* over $tp: no ' No Errors'"; exit 1; }
  done
  echo "ran $(basename "$1") over tcp and sctp"
}
install_tree() {
  cmake --install "$bin" --prefix "$work/prefix" >/dev/null
  echo "$work/prefix"
}
case $mode in
  mpicxx)
    for w in mpicxx mpic++; do
      "$bin/tools/mpicc/$w" -O2 -Wall -Werror -o "$work/hello_$w" "$src/hello.cpp"
      run "$work/hello_$w"
    done ;;
  pkgconfig)
    export PKG_CONFIG_PATH=$bin/tools/mpicc/pkgconfig
    for pc in sctpmpi mpi; do
      # shellcheck disable=SC2046
      cc -O2 -Wall -Werror -o "$work/c_$pc" "$src/pmpi_free.c" $(pkg-config --cflags --libs $pc)
      run "$work/c_$pc"
      # shellcheck disable=SC2046
      c++ -O2 -Wall -Werror -o "$work/cxx_$pc" "$src/hello.cpp" $(pkg-config --cflags --libs $pc)
      run "$work/cxx_$pc"
    done ;;
  install)
    p=$(install_tree)
    for w in mpicc mpicxx mpic++ mpiexec mpirun; do
      [ -x "$p/bin/$w" ] || { echo "FAILED: $p/bin/$w not installed"; exit 1; }
    done
    "$p/bin/mpicc" -O2 -o "$work/c_inst" "$src/pmpi_free.c"
    "$p/bin/mpicxx" -O2 -o "$work/cxx_inst" "$src/hello.cpp"
    mpiexec=$p/bin/mpiexec
    run "$work/c_inst"; run "$work/cxx_inst"
    # pkg-config from the installed prefix (relocatable: found from the .pc file's place)
    mv "$p" "$work/moved"; p=$work/moved
    export PKG_CONFIG_PATH
    PKG_CONFIG_PATH=$(dirname "$(find "$p" -name sctpmpi.pc | head -1)")
    # shellcheck disable=SC2046
    cc -O2 -o "$work/c_pc_inst" "$src/pmpi_free.c" $(pkg-config --cflags --libs mpi)
    mpiexec=$p/bin/mpiexec
    run "$work/c_pc_inst" ;;
  cmake)
    p=$(install_tree)
    cmake -S "$src/find_mpi" -B "$work/user" -G Ninja -DMPI_C_COMPILER="$p/bin/mpicc" \
          -DMPI_CXX_COMPILER="$p/bin/mpicxx" -DMPIEXEC_EXECUTABLE="$p/bin/mpiexec" \
          > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; echo "FAILED: configure"; exit 1; }
    grep "FindMPI:" "$work/cmake.log"
    ninja -C "$work/user" >/dev/null
    mpiexec=$p/bin/mpiexec
    run "$work/user/user_c"; run "$work/user/user_cxx" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo " No Errors"
