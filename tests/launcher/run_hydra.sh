#!/bin/sh
# run_hydra.sh MODE PROG — runs PROG with 2 ranks under MPICH's mpiexec.hydra -launcher fork,
# MODE fd (PMI_FD socket) or port (-pmi-port: PMI_PORT/PMI_ID).  Exits 77 (skip) without hydra.
mode=$1; prog=$2
hydra=$(command -v mpiexec.hydra) || { echo "SKIP: mpiexec.hydra is not installed"; exit 77; }
if [ "$mode" = port ]; then extra=-pmi-port; else extra=; fi
exec timeout 50 "$hydra" -launcher fork $extra -n 2 "$prog"
