#!/bin/sh
# check_flags.sh MPIEXEC ENV_CHECK TRANSPORT — mpiexec's Open MPI / MPICH flag spellings, each
# running a real MPI program (env_check) that checks the environment its ranks got:
# -genv/-env/-genvlist, --oversubscribe, -H/--host/-hosts and hostfiles naming this machine
# (their slots give the rank count), -ppn/--map-by on one host; a remote host whose launcher
# fails, a ppn needing more hosts and an unknown flag fail with a clear message and no rank
# started.
set -u
mpiexec=$1; prog=$2; tr=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_flags_XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0
fail() { echo "FAIL: $*"; [ -f "$dir/out" ] && cat "$dir/out"; exit 1; }
ok() { n=$((n + 1)); }
# run EXPECTED_SIZE mpiexec-args... : must exit 0 with " No Errors" and "size N"
run() {
  want=$1; shift
  "$mpiexec" --transport "$tr" --timeout 60 "$@" >"$dir/out" 2>&1 || fail "exit $?: $*"
  grep -qx ' No Errors' "$dir/out" || fail "no ' No Errors': $*"
  grep -qx "size $want" "$dir/out" || fail "not $want ranks: $*"
  ok
}

run 2 -n 2 -genv SM_G 'a b' "$prog" 'SM_G=a b'
run 2 -np 2 -env SM_E 1 -genv SM_F=x=y "$prog" SM_E=1 SM_F=x=y
SM_L1=one SM_L2=two run 3 -n 3 -genvlist SM_L1,SM_L2 "$prog" SM_L1=one SM_L2=two
SM_L1=one run 2 -n 2 -envlist SM_L1 -genvall -envall "$prog" SM_L1=one
run 3 -n 3 --oversubscribe -oversubscribe -x SM_X=9 "$prog" SM_X=9 SM_NOT_SET=!
# host lists naming this machine; their slots give the rank count when -n is absent
run 2 -H localhost:2 "$prog"
run 3 --host 127.0.0.1,localhost:2 "$prog"
run 1 -hosts "$(hostname)" "$prog"
run 2 --hosts=::1,127.0.0.2 "$prog"
run 4 -n 4 -H localhost "$prog"
printf '# local hosts\nlocalhost slots=2\n\n127.0.0.1:1   # trailing comment\n%s\n' "$(hostname)" >"$dir/hosts"
run 4 --hostfile "$dir/hosts" "$prog"
run 4 -f "$dir/hosts" "$prog"
run 2 -n 2 -machinefile "$dir/hosts" "$prog"
run 4 --machinefile="$dir/hosts" -hostfile "$dir/hosts" -n 4 "$prog"
run 2 -ppn 2 -n 2 "$prog"
run 3 --map-by ppr:4:node -n 3 "$prog"
run 2 --map-by core -n 2 "$prog"

# -wdir / --wdir (local and through proxies), -prepend-rank / --tag-output, -npernode
out=$("$mpiexec" -n 2 -wdir /usr -prepend-rank pwd | sort | tr '\n' ' ')
[ "$out" = "[0] /usr [1] /usr " ] || fail "-wdir /usr -prepend-rank: '$out'"; ok
out=$("$mpiexec" --launcher-rsh "env SM_FAKE_HOST=%h" -H hA,hB --wdir=/etc --tag-output \
  -npernode 1 pwd | sort | tr '\n' ' ')
[ "$out" = "[0] /etc [1] /etc " ] || fail "--wdir through proxies: '$out'"; ok
"$mpiexec" -n 1 -wdir "$dir/nonexistent" true >"$dir/out" 2>&1
[ $? = 127 ] && grep -q "wdir" "$dir/out" || fail "-wdir to a missing directory"; ok

# stdin goes to rank 0 only, also when rank 0 sits behind a proxy (a large input too)
out=$(seq 1 100000 | "$mpiexec" --launcher-rsh "env SM_FAKE_HOST=%h" -H hA,hB -l sh -c 'wc -l' |
  sort | tr '\n' ' ')
[ "$out" = "[0] 100000 [1] 0 " ] || fail "stdin through a proxy: '$out'"; ok

# refusals: exit status, message, and no rank started (the program would create a file)
marker="$dir/started"
refuse() {
  code=$1; msg=$2; shift 2
  "$mpiexec" "$@" sh -c "touch '$marker'" >"$dir/out" 2>&1; rc=$?
  [ $rc -eq "$code" ] || fail "exit $rc (want $code): $*"
  grep -qF -- "$msg" "$dir/out" || fail "message '$msg' missing: $*"
  [ ! -e "$marker" ] || fail "a rank was started: $*"
  ok
}
# other hosts get a proxy through the rsh command: one that fails (`false`) ends the job with
# 255 and a message naming the host, before any rank starts anywhere
remote="could not start the proxy on host 198.18.0.1 (launcher: false); no rank was started on any host"
export SCTPMPI_LAUNCHER_RSH=false
refuse 255 "$remote" -H 198.18.0.1
refuse 255 "$remote" -n 2 --host localhost,198.18.0.1:4
printf 'localhost\n198.18.0.1 slots=2\n' >"$dir/remote"
refuse 255 "$remote" --hostfile "$dir/remote"
refuse 255 "could not start the proxy on host remote-node-x.invalid" \
  -hosts remote-node-x.invalid
refuse 255 "could not start the proxy on host 198.18.0.1 (launcher: false %h)" \
  --launcher-rsh "false %h" -H 198.18.0.1
unset SCTPMPI_LAUNCHER_RSH
refuse 1 "4 ranks at 2 per host need 2 hosts, and no host was given" -ppn 2 -n 4
refuse 1 "2 ranks at 1 per host need 2 hosts, and no host was given" \
  --map-by ppr:1:node -n 2
refuse 1 "4 ranks at 1 per host need 4 hosts, only 2 given" -ppn 1 -n 4 -H hA,hB
refuse 2 "--launcher-rsh wants a command" --launcher-rsh= -H hA
refuse 2 "unknown option --frobnicate (see mpiexec --help)" --frobnicate
refuse 2 "unknown option -gen (see mpiexec --help)" -gen A B
"$mpiexec" -genv A >"$dir/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qF -- "-genv A needs a value" "$dir/out" || fail "-genv without a value ($rc)"; ok
refuse 2 "cannot open hostfile" --hostfile "$dir/nonexistent"
refuse 2 "--map-by wants ppr:N:node" --map-by ppr:x:socket
printf 'localhost junk\n' >"$dir/bad"
refuse 2 "cannot parse 'junk'" -f "$dir/bad"

# --help documents every spelling, the environment and the exit status
"$mpiexec" --help >"$dir/out" || fail "--help"
for w in -genv -env -genvlist --oversubscribe -oversubscribe -H --host -hosts --hostfile \
         -machinefile -ppn ppr:N:node SCTPMPI_TIMEOUT "EXIT STATUS" --launcher-rsh \
         SCTPMPI_LAUNCHER_RSH sctpmpi_proxy "map-by node" -wdir -prepend-rank --tag-output \
         -npernode; do
  grep -qF -- "$w" "$dir/out" || fail "--help does not mention $w"
done
ok
echo "PASS: $n checks ($tr)"
