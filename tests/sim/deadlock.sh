#!/bin/sh
# deadlock.sh MPIEXEC PROG TOPO — a deadlocked job under --sim must end within seconds, non-zero,
# with the simulator's deadlock message.
out=$(SCTPMPI_SIM_DEADLOCK_S=60 "$1" --sim "$3" -n 2 --timeout 30 "$2" 2>&1)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "sim-test FAILED: a deadlocked job exited 0"; exit 1; }
echo "$out" | grep -q "simnet: deadlock at virtual time" ||
  { echo "sim-test FAILED: no deadlock message"; exit 1; }
echo "$out" | grep -q "timed out" && { echo "sim-test FAILED: ended by --timeout"; exit 1; }
echo "sim-test deadlock: PASSED"
