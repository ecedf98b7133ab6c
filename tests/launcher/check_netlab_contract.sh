#!/bin/sh
# check_netlab_contract.sh MPIEXEC PMI_TEST — mpiexec --netlab against a fake `netlab` that
# follows the contract (run/hosts/exec), placed next to a copy of mpiexec as in an installed
# bindir.  Checks the re-exec through `netlab run`, the round-robin placement over
# `netlab hosts`, SCTPMPI_LOCAL_RANKS per host, and that PMI still works through `netlab exec`.
set -u
mpiexec=$1; prog=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_netlab_XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }
mkdir "$dir/bin"
cp "$mpiexec" "$dir/bin/mpiexec"
cat >"$dir/bin/netlab" <<'SH'
#!/bin/sh
# fake netlab: just enough of the contract for mpiexec
case $1 in
  run)  [ "$3" = "--" ] || exit 9; echo "$2" >"$FAKE_NETLAB_LOG.topo"; shift 3
        NETLAB_RUN=1 exec "$@" ;;
  hosts) printf 'hA\nhB\nhC\n' ;;
  exec) host=$2; [ "$3" = "--" ] || exit 9; shift 3
        SCTPMPI_ADDRS="10.0.0.$(echo "${host#h}" | tr ABC 123)" NETLAB_HOST=$host exec "$@" ;;
  *) exit 9 ;;
esac
SH
chmod +x "$dir/bin/netlab"
export FAKE_NETLAB_LOG="$dir/log"
unset NETLAB_RUN

out=$("$dir/bin/mpiexec" --netlab mytopo -n 5 sh -c \
  'echo "$PMI_RANK $NETLAB_HOST $SCTPMPI_LOCAL_RANKS $SCTPMPI_ADDRS"' 2>"$dir/err" | sort)
want="0 hA 2 10.0.0.1
1 hB 2 10.0.0.2
2 hC 1 10.0.0.3
3 hA 2 10.0.0.1
4 hB 2 10.0.0.2"
[ "$out" = "$want" ] || { echo "$out"; fail "placement over netlab hosts"; }
[ "$(cat "$dir/log.topo")" = mytopo ] || fail "netlab run did not get the topology"
out=$("$dir/bin/mpiexec" --netlab mytopo -n 4 "$prog" 2>"$dir/err")
[ "$out" = " No Errors" ] || fail "PMI through netlab exec: $out"
echo "PASS: --netlab contract (fake netlab)"
