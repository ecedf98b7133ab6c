#!/bin/sh
# check_pmi2_hydra.sh PROG — PROG (an MPI test program) with 4 ranks under MPICH's
# mpiexec.hydra -launcher fork, forced onto the PMI-2 wire protocol (SCTPMPI_PMI=pmi2): it must
# print " No Errors", exit 0, and every rank must say it booted through pmi2 with its local
# rank among 4 (from PMI_process_mapping).  Exits 77 (skip) without hydra.
set -u
prog=$1
hydra=$(command -v mpiexec.hydra) || { echo "SKIP: mpiexec.hydra is not installed (mpich)"; exit 77; }
out=$(timeout 50 "$hydra" -launcher fork -n 4 -genv SCTPMPI_PMI pmi2 -genv SCTPMPI_VERBOSE 3 \
      -genv SCTPMPI_TRANSPORT tcp "$prog" 2>&1)
rc=$?
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
[ "$rc" = 0 ] || fail "exit status $rc"
echo "$out" | grep -q "^ No Errors" || fail "no No Errors"
n=$(echo "$out" | grep -c "booted through pmi2: rank [0-3] of 4, local rank [0-3] of 4")
[ "$n" = 4 ] || fail "expected 4 ranks booted through pmi2 with 4 local ranks, saw $n"
echo "$out" | grep -E "booted through|No Errors"
