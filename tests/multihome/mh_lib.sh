# mh_lib.sh — shared by the multihoming tests: argument handling, the environment checks (a
# missing piece is a FAIL with the reason, not a skip: these tests are the only proof that
# multihoming works), a scratch directory, and a trap that always cleans up (netlab gc).
# Usage from a test: . mh_lib.sh "$@"  (MPIEXEC PROG NETLAB)
set -u
MPIEXEC=$1 PROG=$2 NETLAB=$3
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (network namespaces and TUN devices for netlab)"
[ -c /dev/net/tun ] || fail "/dev/net/tun is missing: netlab cannot create its rails"
command -v ip >/dev/null || fail "iproute2 (ip) is missing"
ip netns list >/dev/null 2>&1 || fail "ip netns does not work here"
for f in "$MPIEXEC" "$PROG" "$NETLAB"; do [ -x "$f" ] || fail "$f is missing"; done
T=$(mktemp -d /tmp/sm-multihome.XXXXXX)
cleanup() {
  local rc=$?
  "$NETLAB" gc >/dev/null 2>&1
  rm -rf "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_job TOPO TIMEOUT_S ENV... -- ARGS: mh_stream on 2 ranks, one per host, inside a netlab run;
# the job's output and then `netlab stats` go to $T/out; returns mpiexec's status
run_job() {
  local topo=$1 tmo=$2
  shift 2
  local envs=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  timeout $((tmo + 30)) "$NETLAB" run "$topo" -- sh -c "
    env $envs '$MPIEXEC' --netlab '$topo' -n 2 --transport sctp --timeout $tmo '$PROG' $* ;
    echo \"mpiexec status \$?\"; '$NETLAB' stats" >"$T/out" 2>&1
  local rc=$?
  cat "$T/out"
  return $rc
}

# link_field RAIL SRC DST KEY: a counter of `netlab stats` in $T/out
link_field() {
  awk -v r="rail=$1" -v s="src=$2" -v d="dst=$3" -v k="$4=" \
    '$1 == "link" && $2 == r && $3 == s && $4 == d {
       for (i = 5; i <= NF; i++) if (index($i, k) == 1) { sub(k, "", $i); print $i } }' "$T/out"
}
