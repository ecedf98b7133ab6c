#!/usr/bin/env bash
# test_compare.sh PYTHON SOURCE BUILD MODE — bench/compare.py end to end at the tiniest sizes
# with one contender (our TCP transport), one repetition, --quick iterations:
#   loopback   the loopback table, the CPU-per-GB table and the targets come out; --out report written;
#              with --load 1: the busy background process is named in the report and ended
#   netlab     the same on a 2-host netlab network (1 Gbit/s, 1% loss): ratio columns, the per-run
#              counters table with traffic that crossed the emulated link (skip 77 without root/netns)
#   bad_input  bad --netlab / --only / --bw-sizes / -r values end with a clear usage error, no traceback
#   coll       "compare.py coll" with --base (this build against itself): the before/after table
#              with a number and a ratio in every cell of both contenders, and the --out report
#   rma        bench/rma/compare.py (one-sided latency): a row with a number for each test asked
# No timing is asserted: only that every table holds numbers.
set -u
py=$1 src=$2 build=$3 mode=$4
cmp="$src/bench/compare.py"
tmp=$(mktemp -d /tmp/sm-cmp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; sed -n 1,200p "$tmp/out" 2>/dev/null; tail -20 "$tmp/err" 2>/dev/null; exit 1; }
num='[0-9]+(\.[0-9]+)?'
case $mode in
loopback)
  "$py" "$cmp" --build "$build" -r 1 --quick --only tcp --pp-sizes 0 --bw-sizes 1024 --load 1 \
    --scratch "$tmp/s" --out "$tmp/report.md" >"$tmp/out" 2>"$tmp/err" || fail "compare.py exited with $?"
  grep -Eq "^\| contender \| 0 B lat µs \| 1 KiB bw MB/s \| runs \|$" "$tmp/out" || fail "no results table"
  # --load 1: one busy process for the run, named in the report, gone afterwards
  hog=$(sed -n 's/^compare.py: background load: 1 x yes (pids \([0-9]*\))$/\1/p' "$tmp/err")
  [ -n "$hog" ] || fail "--load 1 started no background process"
  [ ! -e "/proc/$hog" ] || [ "$(cat /proc/$hog/comm 2>/dev/null)" != yes ] ||
    fail "the background process $hog is still running"
  grep -q "Background load started by this run: 1 busy" "$tmp/report.md" || fail "the report does not name the load"
  grep -Eq "^\| sctpmpi, tcp \| $num \| $num \| 2 ok \|$" "$tmp/out" || fail "no tcp row with two numbers and 2 ok runs"
  grep -q "^CPU seconds per GB moved" "$tmp/out" || fail "no CPU per GB table"
  grep -Eq "^\| sctpmpi, tcp \| $num \|$" "$tmp/out" || fail "no CPU per GB number for tcp"
  grep -q "^## Run of " "$tmp/report.md" && grep -q "sctpmpi, tcp" "$tmp/report.md" || fail "--out report missing"
  echo "compare loopback passed" ;;
netlab)
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
  [ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
  ip netns list >/dev/null 2>&1 || { echo "SKIP: no ip netns"; exit 77; }
  "$py" "$cmp" --build "$build" -r 1 --quick --only tcp --pp-sizes 0 --bw-sizes 1024 --netlab 1000,1 \
    --scratch "$tmp/s" --out "$tmp/report.md" >"$tmp/out" 2>"$tmp/err" || fail "compare.py --netlab exited with $?"
  grep -q "^### netlab, 2 hosts, 1000 Mbit/s host NICs, MTU 1500, 1% loss" "$tmp/out" || fail "no netlab section"
  grep -Eq "^\| sctpmpi, tcp \| $num \| $num \| 2 ok \|$" "$tmp/out" || fail "no tcp row with two numbers and 2 ok runs"
  grep -Eq "^\| sctpmpi, tcp \| $num \|$" "$tmp/out" || fail "no CPU per GB number for tcp"
  # counters row: net MB, loss and queue drops, UDP rcvbuf drops, 3 TCP counters are numbers, SCTP ones -
  row=$(grep -E "^\| sctpmpi, tcp( \| $num){7} \| - \|" "$tmp/out") ||
    fail "no counters row for tcp"
  mb=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
  awk -v m="$mb" 'BEGIN { exit !(m > 0) }' || fail "the bw run carried no traffic over the emulated link ($row)"
  grep -q "TCP congestion control inside the hosts" "$tmp/report.md" || fail "--out report lacks the netlab settings"
  run=$(sed -n 's/.* --run \([^ ]*\) .*/\1/p' "$tmp/s/wrap-ompi.sh")
  [ -n "$run" ] || fail "no netlab run recorded in the wrapper"
  [ ! -e "$run" ] || fail "netlab run $run left behind"
  echo "compare netlab passed" ;;
coll)
  "$py" "$cmp" coll --build "$build" --base "$build" --only tcp -r 1 --reps 1 --sizes 8,4k -n 3 \
    --scratch "$tmp/s" --out "$tmp/report.md" >"$tmp/out" 2>"$tmp/err" || fail "compare.py coll exited with $?"
  grep -q "^| op | size | sctpmpi tcp µs | sctpmpi tcp (base) µs |$" "$tmp/out" || fail "no before/after table"
  for op in allreduce alltoall bcast; do
    for sz in "8 B" "4 KiB"; do
      grep -Eq "^\| $op \| $sz \| $num \($num""x\) \| $num \|$" "$tmp/out" || fail "no $op $sz row with a ratio"
    done
  done
  grep -q "this build / the base build" "$tmp/out" || fail "the ratio is not said to be against the base"
  grep -q "^### Run of " "$tmp/report.md" || fail "--out report missing"
  echo "compare coll passed" ;;
rma)
  "$py" "$src/bench/rma/compare.py" --build "$build" --only tcp -r 1 --reps 1 --sizes 8 \
    --tests put_lat_lock,get_lat_lock,acc_lat,fop_lat --scratch "$tmp/s" --out "$tmp/report.md" \
    >"$tmp/out" 2>"$tmp/err" || fail "bench/rma/compare.py exited with $?"
  for t in put_lat_lock get_lat_lock acc_lat fop_lat; do
    grep -Eq "^\| $t \(µs\) \| 8 B \| $num \|$" "$tmp/out" || fail "no $t row with a number"
  done
  grep -q "^### Run of " "$tmp/report.md" || fail "--out report missing"
  echo "compare rma passed" ;;
bad_input)
  check() {  # args...: must exit 2 with 'error:' on stderr and no Python traceback
    "$py" "$cmp" --build "$build" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "compare.py $* exited $rc, want 2 (usage error)"
    grep -q "error:" "$tmp/err" || fail "compare.py $*: no error message"
    ! grep -q Traceback "$tmp/err" || fail "compare.py $*: traceback"
  }
  check --netlab 1000
  check --netlab 1000,abc
  check --netlab 0,1
  check --netlab 1000,100
  check --only tcp,nosuch
  check --bw-sizes 1k
  check -r 0
  check --load -1
  echo "compare bad input passed" ;;
*) echo "unknown mode $mode"; exit 1 ;;
esac
