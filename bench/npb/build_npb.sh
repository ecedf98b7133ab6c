#!/usr/bin/env bash
# build_npb.sh — builds NPB 3.x MPI benchmarks with a given MPI's Fortran and C wrappers (ours,
# Open MPI's or MPICH's), for the comparisons of netlab_npb.py.  It fetches nothing.
#
#   build_npb.sh NPB_SRC OUTDIR MPIFORT MPICC CLASS NPROCS "bt cg ep ft is lu mg sp"
#
# Copies NPB_SRC to OUTDIR/npb, writes config/make.def (-O2, RAND = randdp: randi8's BOZ
# constants are rejected by gfortran 12) and leaves the binaries in OUTDIR/npb/bin.
set -euo pipefail
[ $# -eq 7 ] || { sed -n '2,9p' "$0"; exit 2; }
src=$1 out=$2 fc=$3 cc=$4 class=$5 np=$6 benches=$7
mkdir -p "$out"
rm -rf "$out/npb"
cp -r "$src" "$out/npb"
cd "$out/npb"
# gfortran 10+ rejects the mismatched buffer types of mpif.h programs unless told
fflags="-O2"
if "$fc" --version 2>/dev/null | grep -q "GNU Fortran"; then fflags="-O2 -fallow-argument-mismatch -w"; fi
cat > config/make.def <<DEF
MPIFC = $fc
FLINK = \$(MPIFC)
FFLAGS = $fflags
FLINKFLAGS = -O2
MPICC = $cc
CLINK = \$(MPICC)
CFLAGS = -O2
CLINKFLAGS = \$(CFLAGS)
CC = cc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randdp
DEF
mkdir -p bin
rc=0
for b in $benches; do
  if ! make "$b" CLASS="$class" NPROCS="$np" > "build.$b.log" 2>&1; then
    echo "build_npb.sh: $b failed with $fc (see $out/npb/build.$b.log)" >&2
    rc=1
  fi
done
exit $rc
