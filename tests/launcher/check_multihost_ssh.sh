#!/bin/bash
# check_multihost_ssh.sh MPIEXEC NETLAB PMI_TEST TRANSPORTS PROG... (TRANSPORTS: tcp,sctp) — multi-host mpiexec over a
# real OpenSSH: 4 netlab hosts, each running its own sshd (test-made config, host key, user
# key and known_hosts in a temporary directory) on its management address; mpiexec runs in
# the root namespace and reaches every host with `ssh -F <test config> HOST`.  Checks:
# placement (blocks of slots, --map-by node, hostfile) from the addresses each rank sees; the
# first PROG on 4 hosts x 4 ranks over every transport, the others over the last one ("No
# Errors"); a rank SIGKILLed on one host, the proxy of one host SIGKILLed, and one host
# "powered off": the job ends within 10 s with the right status and message, and no rank or
# proxy is left in any host's namespace.  Needs root, /dev/net/tun and sshd: exit 77
# (skip) with the reason otherwise.
set -u
mpiexec=$(readlink -f "$1"); netlab=$(readlink -f "$2"); pmi_test=$(readlink -f "$3"); tr=$4
shift 4
progs=()
for p in "$@"; do progs+=("$(readlink -f "$p")"); done
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
command -v ip >/dev/null || skip "no iproute2"
sshd=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$sshd" ] || skip "no sshd (Debian openssh-server; scripts/setup.sh installs it)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip "no ssh client"

if [ -z "${NETLAB_RUN:-}" ]; then # bring up the network, run ourselves inside it
  dir=$(mktemp -d "${TMPDIR:-/tmp}/sm_mh_XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  echo '{ "hosts": ["h0", "h1", "h2", "h3"] }' >"$dir/topo.json"
  SM_MH_DIR=$dir "$netlab" run "$dir/topo.json" -- "$0" "$mpiexec" "$netlab" "$pmi_test" "$tr" \
    "${progs[@]}"
  exit $?
fi

T=$SM_MH_DIR
hosts=(h0 h1 h2 h3)
sshd_pids=()
cleanup() {
  for p in "${sshd_pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }

ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" -C sm-test-host || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$T/id" -C sm-test-user || fail "ssh-keygen"
cp "$T/id.pub" "$T/authorized_keys"
: >"$T/known_hosts"
cat >"$T/ssh_config" <<CFG
Host *
  User root
  IdentityFile $T/id
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5
  ServerAliveInterval 2
  ServerAliveCountMax 2
  LogLevel ERROR
CFG
# sshd refuses to start without its privilege separation directory (normally made by the
# service scripts, which we do not run)
[ -d /run/sshd ] || mkdir -p -m 0755 /run/sshd
declare -A mgmt data
for h in "${hosts[@]}"; do
  read -r m d < <("$netlab" exec "$h" -- sh -c 'echo $NETLAB_MGMT_ADDR $NETLAB_ADDRS')
  mgmt[$h]=$m; data[$h]=${d%%,*}
  cat >"$T/sshd_$h.conf" <<CFG
ListenAddress $m
HostKey $T/hostkey
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
AcceptEnv SCTPMPI_ADDRS
LogLevel ERROR
CFG
  echo "$m $(cut -d' ' -f1,2 "$T/hostkey.pub")" >>"$T/known_hosts"
  # the ranks use the host's emulated data address (rail 0), sent along by ssh
  printf 'Host %s\n  HostName %s\n  SetEnv SCTPMPI_ADDRS=%s\n' "$h" "$m" "${data[$h]}" \
    >>"$T/ssh_config.hosts"
  "$netlab" exec "$h" -- "$sshd" -D -e -f "$T/sshd_$h.conf" 2>>"$T/sshd_$h.log" &
  sshd_pids+=($!)
done
cat "$T/ssh_config" >>"$T/ssh_config.hosts"
mv "$T/ssh_config.hosts" "$T/ssh_config"
export SCTPMPI_LAUNCHER_RSH="ssh -F $T/ssh_config"
for h in "${hosts[@]}"; do
  ok=0
  for _ in $(seq 50); do
    ssh -F "$T/ssh_config" "$h" true 2>/dev/null && { ok=1; break; }
    sleep 0.1
  done
  [ $ok = 1 ] || { cat "$T/sshd_$h.log"; fail "sshd on $h does not answer"; }
done
echo "4 sshd up: ${mgmt[*]}"

prefix=$("$netlab" info | sed -n 's/^prefix=//p')
# processes of ours (proxy, ranks) left in any host's namespace
leftovers() {
  for h in "${hosts[@]}"; do
    for p in $(ip netns pids "$prefix-$h" 2>/dev/null); do
      c=$( { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)
      case $c in *sctpmpi_proxy* | *pmi_test* | *"${progs[0]}"*) echo "$h:$p:$c" ;; esac
    done
  done
}
wait_no_leftovers() {
  for _ in $(seq 30); do [ -z "$(leftovers)" ] && return 0; sleep 0.1; done
  leftovers
  return 1
}

# placement: each rank prints the data address it was given; rank r must be on host want(r)
check_place() { # what hostlist-options...
  local what=$1; shift
  out=$("$mpiexec" "$@" -l --timeout 30 sh -c 'echo $SCTPMPI_ADDRS $SCTPMPI_LOCAL_RANKS') ||
    fail "placement ($what): mpiexec failed"
  echo "$out" | sort -n -t']' -k1.2 >"$T/place"
  [ "$(wc -l <"$T/place")" = 16 ] || fail "placement ($what): $(cat "$T/place")"
  while read -r r a n; do
    r=${r#[}; r=${r%]}
    h=${hosts[$(want "$r")]}
    [ "$a" = "${data[$h]}" ] && [ "$n" = 4 ] ||
      fail "placement ($what): rank $r on $a (local ranks $n), wanted ${data[$h]} ($h)"
  done <"$T/place"
  echo "PASS placement ($what)"
}
want() { echo $(($1 / 4)); }
check_place "-H, blocks of slots" -H h0:4,h1:4,h2:4,h3:4
printf 'h0 slots=4\nh1 slots=4\n# comment\nh2 slots=4\nh3 slots=4\n' >"$T/hostfile"
check_place "--hostfile" --hostfile "$T/hostfile"
check_place "-ppn 4" -ppn 4 -n 16 -H h0,h1,h2,h3
want() { echo $(($1 % 4)); }
check_place "--map-by node" --map-by node -n 16 -H h0,h1,h2,h3

# MPI programs, 4 hosts x 4 ranks: the first over each transport, the others (slower) over
# the last transport of the list only
last=${tr##*,}
for t in ${tr//,/ }; do
  for p in "${progs[@]}"; do
    [ "$p" = "${progs[0]}" ] || [ "$t" = "$last" ] || continue
    start=$(date +%s.%N)
    out=$(SM_LAUNCH_T0=$(date +%s.%N) "$mpiexec" -H h0:4,h1:4,h2:4,h3:4 --transport "$t" \
      --timeout 120 "$p" 2>&1)
    rc=$?
    end=$(date +%s.%N)
    echo "$out" | grep -q " No Errors" && [ $rc = 0 ] || fail "$(basename "$p") ($t): rc=$rc: $out"
    echo "PASS $(basename "$p") over $t, 16 ranks on 4 hosts via ssh in $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}') s"
    echo "$out" | grep "^scale:"
  done
done
wait_no_leftovers || fail "processes left after the good runs"

# failures: a rank killed on h2, the proxy of h1 killed, then host h3 "powered off" (its
# management link cut, then every process in it SIGKILLed: no FIN ever reaches mpiexec's ssh,
# which notices through its keep-alives, ServerAliveInterval 2 x ServerAliveCountMax 2)
export SM_PMI_TEST_MODE=hang
for case in rank proxy host; do
  "$mpiexec" -H h0:4,h1:4,h2:4,h3:4 "$pmi_test" >"$T/out" 2>"$T/err" &
  launcher=$!
  victim=""
  for _ in $(seq 100); do # wait for all 16 ranks
    n=0
    for h in "${hosts[@]}"; do
      for p in $(ip netns pids "$prefix-$h"); do
        { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q pmi_test && n=$((n + 1))
      done
    done
    [ $n -ge 16 ] && break
    sleep 0.1
  done
  [ $n -ge 16 ] || { kill -9 $launcher; fail "$case: only $n ranks started"; }
  sleep 0.5 # every rank inside its PMI barrier
  case $case in
    rank) vh=h2; pat=pmi_test ;;
    proxy) vh=h1; pat=sctpmpi_proxy ;;
    host) vh=h3; pat=sctpmpi_proxy ;;
  esac
  for p in $(ip netns pids "$prefix-$vh"); do
    { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q "$pat" && { victim=$p; break; }
  done
  [ -n "$victim" ] || { kill -9 $launcher; fail "$case: no $pat on $vh"; }
  start=$(date +%s.%N)
  if [ $case = host ]; then
    ip netns exec "$prefix-$vh" ip link set mgmt down
    # shellcheck disable=SC2046
    kill -9 $(ip netns pids "$prefix-$vh") 2>/dev/null
  else
    kill -9 "$victim"
  fi
  ( sleep 20; kill -9 $launcher ) 2>/dev/null &
  dog=$!
  wait $launcher
  rc=$?
  end=$(date +%s.%N)
  kill $dog 2>/dev/null
  el=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
  msg=$(grep mpiexec: "$T/err" | head -1)
  if [ $case = rank ]; then
    [ $rc = 137 ] || fail "rank killed: exit $rc, wanted 137: $(cat "$T/err")"
    echo "$msg" | grep -q "rank [0-9]* was killed by signal 9" || fail "rank killed: message: $msg"
  else
    [ $rc = 255 ] || fail "$case killed: exit $rc, wanted 255: $(cat "$T/err")"
    echo "$msg" | grep -q "lost the connection to the proxy on host $vh" ||
      fail "$case killed: message: $msg"
  fi
  awk -v e="$el" 'BEGIN { exit !(e < 10) }' || fail "$case killed: took $el s (limit 10)"
  wait_no_leftovers || fail "$case killed: processes left behind"
  echo "PASS $case killed on one host: exit $rc in $el s, nothing left on any host; $msg"
done
# h3's sshd died with the rest of h3; the cleanup trap's kill of it is then a no-op
echo " No Errors"
