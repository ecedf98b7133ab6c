# netlab tests: shared helpers — environment checks (skip with 77), tool paths, a scratch
# directory and a trap that always cleans up (our run only: each run has a unique prefix).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
NETLAB=${NETLAB:-netlab}
NLPROBE=${NLPROBE:-nlprobe}
SKIP=77

skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ "$(id -u)" = 0 ] || skip "netlab tests need root (namespaces and TUN devices)"
[ -c /dev/net/tun ] || skip "/dev/net/tun is missing"
command -v ip >/dev/null || skip "iproute2 (ip) is missing"
ip netns list >/dev/null 2>&1 || skip "ip netns does not work here"
command -v python3 >/dev/null || skip "python3 is missing"

T=$(mktemp -d /tmp/netlab-test.XXXXXX)
BGPIDS=""
STARTED=""   # run directories of `netlab start` networks to stop
cleanup() {
  local rc=$?
  for r in $STARTED; do "$NETLAB" stop --run "$r" >/dev/null 2>&1; done
  for p in $BGPIDS; do kill -TERM "$p" 2>/dev/null; done
  for p in $BGPIDS; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  "$NETLAB" gc >/dev/null 2>&1
  rm -rf "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Probes run at nice -5 (the forwarder at -10) so a busy machine disturbs the measurements less.

# field KEY LINE: value of key=value in a stats line
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# stat_of RAIL SRC DST KEY (inside a run)
stat_of() { field "$4" "$("$NETLAB" stats | grep "^link rail=$1 src=$2 dst=$3 ")"; }

# leftovers PREFIX: prints anything of run PREFIX still present (namespaces, links, state dir)
leftovers() {
  ip netns list | grep -- "^$1-" || true
  ip -o link show | grep -o "$1[a-z0-9]*" || true
  [ -e "/run/netlab/$1" ] && echo "state dir /run/netlab/$1" || true
}

# mpi_run_clean OUT: a job run inside `netlab run` printed "netlab-run-dir=$NETLAB_RUN" into
# OUT; fails if that run left anything behind (other runs may come and go meanwhile)
mpi_run_clean() {
  local prefix
  prefix=$(sed -n 's/^netlab-run-dir=//p' "$1" | head -1)
  prefix=${prefix##*/}
  [ -n "$prefix" ] || fail "the run did not report its netlab run directory"
  local left
  left=$(leftovers "$prefix")
  [ -z "$left" ] || fail "run $prefix left behind: $left"
}
