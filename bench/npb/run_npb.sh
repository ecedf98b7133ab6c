#!/usr/bin/env bash
# run_npb.sh — builds and runs the NAS Parallel Benchmarks (NPB 3.x MPI) with sctpmpi's
# mpifort/mpicc and mpiexec.  It fetches nothing: pass the directory of an NPB3.x-MPI source
# tree you obtained (it is copied, never modified).
#
#   run_npb.sh -s NPB_SRC -b BUILD [-w WORKDIR] [-k "bt cg ep ft is lu mg sp"] [-c "S A"]
#              [-n 4] [-t "tcp sctp"] [-g "BH WH SH"] [-r RESULTS.tsv]
#
#   -s  the NPB3.x-MPI directory (with config/, sys/, CG/, ...)
#   -b  an sctpmpi build tree (its tools/mpicc/mpifort, mpicc, tools/mpiexec/mpiexec) or an
#       install prefix (bin/mpifort, bin/mpicc, bin/mpiexec)
#   -w  where to copy and build (default: a new directory under /tmp)
#   -k  benchmarks; -c classes; -n ranks (BT and SP need a square number); -t transports
#   -g  DT's communication graphs (default BH); DT needs at least as many ranks as its graph
#       has nodes: class S 5 (BH, WH) / 12 (SH), W 11 / 32, A 21 / 80, B 43 / 192
#   -r  append one line per run to this file: bench class np transport seconds Mop/s verified
# Prints one line per run (with the load average before it) and exits non-zero if any run fails
# to verify.  SM_NPB_NICE="nice -n -15" runs the benchmarks at a higher priority (as root).
set -euo pipefail
src="" build="" work="" kernels="bt cg ep ft is lu mg sp" classes="S" np=4 transports="tcp"
results="" graphs="BH"
while getopts "s:b:w:k:c:n:t:g:r:h" o; do
  case $o in
    s) src=$OPTARG ;; b) build=$OPTARG ;; w) work=$OPTARG ;; k) kernels=$OPTARG ;;
    c) classes=$OPTARG ;; n) np=$OPTARG ;; t) transports=$OPTARG ;; r) results=$OPTARG ;;
    g) graphs=$OPTARG ;;
    *) sed -n '2,19p' "$0"; exit 2 ;;
  esac
done
[ -n "$src" ] && [ -d "$src/config" ] || { echo "run_npb.sh: -s NPB3.x-MPI source directory needed" >&2; exit 2; }
[ -n "$build" ] || { echo "run_npb.sh: -b sctpmpi build tree or prefix needed" >&2; exit 2; }
build=$(cd "$build" && pwd)
if [ -x "$build/tools/mpicc/mpifort" ]; then
  mpifort=$build/tools/mpicc/mpifort mpicc=$build/tools/mpicc/mpicc
  mpiexec=$build/tools/mpiexec/mpiexec
else
  mpifort=$build/bin/mpifort mpicc=$build/bin/mpicc mpiexec=$build/bin/mpiexec
fi
for t in "$mpifort" "$mpicc" "$mpiexec"; do
  [ -x "$t" ] || { echo "run_npb.sh: $t not found (built without Fortran?)" >&2; exit 2; }
done
[ -n "$work" ] || work=$(mktemp -d /tmp/npb-sctpmpi.XXXXXX)
mkdir -p "$work"
rm -rf "$work/npb"
cp -r "$src" "$work/npb"
cd "$work/npb"
# randdp: the portable random number generator (randi8 uses non-standard BOZ constants)
cat > config/make.def <<DEF
MPIFC = $mpifort
FLINK = \$(MPIFC)
FFLAGS = -O2
FLINKFLAGS = \$(FFLAGS)
MPICC = $mpicc
CLINK = \$(MPICC)
CFLAGS = -O2
CLINKFLAGS = \$(CFLAGS)
CC = cc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randdp
DEF
mkdir -p bin
fail=0
for class in $classes; do
  for k in $kernels; do
    if ! make "$k" CLASS="$class" NPROCS="$np" > "build.$k.$class.log" 2>&1; then
      echo "$k $class: build FAILED (see $work/npb/build.$k.$class.log)"
      fail=1
      continue
    fi
    exe=$(ls -t bin/"$k"."$class"* 2>/dev/null | head -1)
    # DT runs once per communication graph (its argument); the others once
    runs="-"
    [ "$k" != dt ] || runs=$graphs
    for g in $runs; do
    name=$k args=()
    [ "$g" = - ] || { name="$k-$g" args=("$g"); }
    for tr in $transports; do
      log="run.$name.$class.$np.$tr.log"
      load=$(cut -d' ' -f1-3 /proc/loadavg)   # before the run: what else was running
      ${SM_NPB_NICE:-} "$mpiexec" -n "$np" --transport "$tr" --timeout 3600 "$exe" "${args[@]}" > "$log" 2>&1 || true
      secs=$(awk -F= '/Time in seconds *=/ {gsub(/ /, "", $2); print $2; exit}' "$log")
      mops=$(awk -F= '/Mop\/s total *=/ {gsub(/ /, "", $2); print $2; exit}' "$log")
      ver=$(awk -F= '/Verification *=/ {gsub(/ /, "", $2); print $2; exit}' "$log")
      [ "$ver" = SUCCESSFUL ] || fail=1
      line="$name	$class	$np	$tr	${secs:-?}	${mops:-?}	${ver:-FAILED}	load $load"
      echo "$line"
      [ -z "$results" ] || echo "$line" >> "$results"
    done
    done
  done
done
exit $fail
