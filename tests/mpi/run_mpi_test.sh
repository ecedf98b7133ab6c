#!/bin/sh
# run_mpi_test.sh — runs one MPI test job (the command line given) and passes its output through.
# ctest ignores the exit status once PASS_REGULAR_EXPRESSION is set, so a non-zero exit of the
# launcher is turned into the line "sm-test FAILED: launcher exit status N", which the tests'
# FAIL_REGULAR_EXPRESSION catches (a job that printed " No Errors" and then crashed in
# MPI_Finalize still fails).
"$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "sm-test FAILED: launcher exit status $rc"
fi
exit "$rc"
