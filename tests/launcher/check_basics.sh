#!/bin/sh
# check_basics.sh MPIEXEC PMI_TEST — mpiexec's everyday behaviour: exit codes, -x, env given to
# ranks, --prefix-output, binary-safe forwarding, --help/--version, usage errors, non-PMI programs.
set -u
mpiexec=$1; prog=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_basics_XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { n=$((n + 1)); }

# success prints nothing extra
out=$("$mpiexec" -n 2 "$prog" 2>/dev/null); [ "$out" = " No Errors" ] || fail "extra output on success: $out"; ok
out=$("$mpiexec" -n 2 true 2>&1); [ -z "$out" ] || fail "mpiexec printed something on success: $out"; ok
# mpirun-style -np and --opt=value forms
"$mpiexec" -np 3 --timeout=20 "$prog" >/dev/null 2>&1 || fail "-np 3 --timeout=20"; ok

# environment of the ranks
out=$(SM_B=b "$mpiexec" -n 3 --transport sctp -x SM_A=1 -x SM_B sh -c \
  'echo "$PMI_RANK $PMI_SIZE $SCTPMPI_LOCAL_RANKS $SCTPMPI_TRANSPORT $SM_A $SM_B ${#SCTPMPI_JOB_SECRET}"' \
  2>&1 | sort)
want="0 3 3 sctp 1 b 32
1 3 3 sctp 1 b 32
2 3 3 sctp 1 b 32"
[ "$out" = "$want" ] || { echo "$out"; fail "rank environment"; }
# SM_B comes from our environment
ok
s=$("$mpiexec" -n 2 sh -c 'echo $SCTPMPI_JOB_SECRET' | sort -u | wc -l)
[ "$s" -eq 1 ] || fail "ranks saw different secrets"; ok

# exit codes: first non-zero wins, signals are 128+sig
"$mpiexec" -n 2 sh -c 'exit 5' 2>/dev/null; [ $? -eq 5 ] || fail "exit 5 not propagated"; ok
"$mpiexec" -n 1 sh -c 'kill -9 $$' 2>"$dir/err"; rc=$?
[ $rc -eq 137 ] || fail "signal exit code $rc"; grep -q "rank 0 was killed by signal 9" "$dir/err" || fail "signal message"; ok
"$mpiexec" -n 1 /nonexistent/program 2>"$dir/err"; [ $? -eq 127 ] || fail "missing program"; ok

# --prefix-output / -l: every line of both streams prefixed with its rank, partial lines kept
SM_PMI_TEST_MODE=print "$mpiexec" -n 2 -l "$prog" >"$dir/out" 2>"$dir/err" || fail "print mode run"
grep -qx '\[0\] hello from 0' "$dir/out" && grep -qx '\[1\] hello from 1' "$dir/out" || fail "stdout prefix"
grep -qx '\[1\] warning from 1' "$dir/err" || fail "stderr prefix"
grep -qx '\[1\] bye from 1' "$dir/err" || fail "stderr prefix of an unterminated last line"
grep -qx '\[0\]  No Errors' "$dir/out" || fail "prefixed No Errors"; ok
"$mpiexec" -n 3 --prefix-output sh -c 'i=0; while [ $i -lt 200 ]; do echo "line $i of $PMI_RANK"; i=$((i+1)); done' >"$dir/out"
[ "$(grep -c '^\[[0-2]\] line [0-9]* of [0-2]$' "$dir/out")" -eq 600 ] || fail "interleaved prefixed lines"
[ "$(grep -c '^\[1\] line [0-9]* of 1$' "$dir/out")" -eq 200 ] || fail "prefix does not match rank"; ok

# binary-safe forwarding when not prefixing
head -c 300000 /dev/urandom >"$dir/blob"
"$mpiexec" -n 1 cat "$dir/blob" >"$dir/blob2" || fail "cat blob"
cmp -s "$dir/blob" "$dir/blob2" || fail "binary output altered"; ok
# stdin goes to rank 0
out=$(echo piped | "$mpiexec" -n 2 sh -c 'read x || x=none; echo "$PMI_RANK $x"' | sort)
[ "$out" = "0 piped
1 none" ] || fail "stdin forwarding: $out"; ok

# help, version, usage errors
"$mpiexec" --help | grep -q -- '--prefix-output' || fail "--help"; ok
"$mpiexec" --version | grep -q 'sctpmpi' || fail "--version"; ok
"$mpiexec" -n 0 true 2>/dev/null; [ $? -eq 2 ] || fail "-n 0 accepted"; ok
"$mpiexec" --transport udp true 2>/dev/null; [ $? -eq 2 ] || fail "bad transport accepted"; ok
"$mpiexec" 2>/dev/null; [ $? -eq 2 ] || fail "no program accepted"; ok
SCTPMPI_TIMEOUT=1 "$mpiexec" -n 1 sleep 30 2>/dev/null; [ $? -eq 124 ] || fail "SCTPMPI_TIMEOUT"; ok
echo "PASS: $n checks"
