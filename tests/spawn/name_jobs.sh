#!/bin/sh
# name_jobs.sh MPIEXEC PROG TRANSPORT — two separately started mpiexec jobs (3 and 2
# processes) that share a name directory meet through MPI_Publish_name / MPI_Lookup_name and
# connect/accept.  Prints " No Errors" when both jobs passed.
set -u
mpiexec=$1 prog=$2 tp=$3
dir=$(mktemp -d /tmp/sctpmpi-namejobs-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
export SCTPMPI_NAME_DIR=$dir
svc=name-jobs-$$
"$mpiexec" -n 3 --transport "$tp" --timeout 60 "$prog" server "$svc" > "$dir/server.out" 2>&1 &
spid=$!
"$mpiexec" -n 2 --transport "$tp" --timeout 60 "$prog" client "$svc" > "$dir/client.out" 2>&1
crc=$?
wait $spid
src=$?
echo "--- server (exit $src)"; cat "$dir/server.out"
echo "--- client (exit $crc)"; cat "$dir/client.out"
if [ $src -eq 0 ] && [ $crc -eq 0 ] && grep -q " No Errors" "$dir/server.out" &&
   grep -q " No Errors" "$dir/client.out"; then
  echo " No Errors"
else
  echo "sm-test FAILED"
  exit 1
fi
