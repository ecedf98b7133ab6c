#!/bin/sh
# check_info.sh SCTPMPI_INFO TUNABLES_MD — sctpmpi_info's default, --all, --param and --parsable
# output against docs/tunables.md, values taken from the environment, and its usage errors.
set -u
info=$1; doc=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_info_XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { n=$((n + 1)); }
unset SCTPMPI_SCTP_CC SCTPMPI_EAGER_LIMIT

# default: version, MPI level, transports; no tunable section when none is set
env -u SCTPMPI_TRANSPORT -u SCTPMPI_TIMEOUT "$info" >"$dir/out" || fail "default run"
grep -q '^sctpmpi version: *0\.[0-9]' "$dir/out" || fail "version line"
grep -q '^MPI standard: *4\.1$' "$dir/out" || fail "MPI level"
grep -q '^transports: *tcp, sctp' "$dir/out" || fail "transports"
grep -q '^SCTP backends: *native' "$dir/out" || fail "backends"
grep -q SCTPMPI_SCTP_CC "$dir/out" && fail "default output lists an unset tunable"; ok
SCTPMPI_SCTP_CC=bbr "$info" >"$dir/out" || fail "run with SCTPMPI_SCTP_CC"
grep -A3 '^  SCTPMPI_SCTP_CC$' "$dir/out" >"$dir/cc"
grep -q 'default: auto' "$dir/cc" && grep -q 'value: *bbr' "$dir/cc" || fail "set tunable shown"
grep -q SCTPMPI_EAGER_LIMIT "$dir/out" && fail "unset tunable shown"; ok

# --all: every documented row, each with a default, a value and a meaning
"$info" --all >"$dir/all" || fail "--all"
rows=$(grep -o '^| `SCTPMPI_[A-Z0-9_]*`' "$doc" | wc -l)
shown=$(grep -c '^  SCTPMPI_[A-Z0-9_]*$' "$dir/all")
[ "$rows" -gt 40 ] && [ "$rows" -eq "$shown" ] || fail "--all shows $shown of $rows tunables"
grep -A3 '^  SCTPMPI_SCTP_CC$' "$dir/all" | grep -q 'value: *(default)' || fail "--all value"
grep -q '`' "$dir/all" && fail "markdown backticks left in --all"
grep -q '](' "$dir/all" && fail "markdown link left in --all"
awk 'length > 120 { bad = 1 } END { exit bad }' "$dir/all" || fail "a short meaning is too long"; ok

# --param: one tunable, full meaning; unknown -> exit 1
SCTPMPI_SCTP_CC=cubic "$info" --param SCTPMPI_SCTP_CC >"$dir/out" || fail "--param"
grep -q 'default: auto' "$dir/out" && grep -q 'value: *cubic' "$dir/out" || fail "--param values"
grep -q 'meaning: .*bbr.*refused at MPI_Init' "$dir/out" || fail "--param full meaning"; ok
"$info" --param=SCTPMPI_EAGER_LIMIT | grep -q 'default: 64k' || fail "--param=NAME"; ok
"$info" --param SCTPMPI_NO_SUCH >"$dir/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "unknown tunable 'SCTPMPI_NO_SUCH'" "$dir/out" || fail "unknown --param ($rc)"; ok

# --parsable
SCTPMPI_SCTP_CC=bbr "$info" --parsable >"$dir/out" || fail "--parsable"
grep -qx 'version:0\.[0-9.]*' "$dir/out" || fail "parsable version"
grep -qx 'mpi:4\.1' "$dir/out" || fail "parsable mpi"
grep -qx 'transport:tcp' "$dir/out" && grep -qx 'transport:sctp' "$dir/out" || fail "parsable transports"
grep -qx 'backend:native' "$dir/out" || fail "parsable backend"
grep -qx 'param:SCTPMPI_SCTP_CC:default:auto:value:bbr' "$dir/out" || fail "parsable param"; ok
"$info" --all --parsable | grep -qx 'param:SCTPMPI_EAGER_LIMIT:default:64k:value:(default)' \
  || fail "parsable --all"; ok
"$info" --parsable --param SCTPMPI_SCTP_CC | grep -q '^param:SCTPMPI_SCTP_CC:meaning:native: ' \
  || fail "parsable --param meaning"; ok

# help, version, usage errors
"$info" --help | grep -q -- '--parsable' || fail "--help"; ok
"$info" --version | grep -q '^sctpmpi_info (sctpmpi) ' || fail "--version"; ok
"$info" --bogus >"$dir/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'unknown option --bogus' "$dir/out" || fail "unknown flag ($rc)"; ok
"$info" --param >"$dir/out" 2>&1; [ $? -eq 2 ] || fail "--param without a name"; ok
echo "PASS: $n checks"
