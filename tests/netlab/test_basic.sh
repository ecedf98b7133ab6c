#!/bin/bash
# netlab test: TCP, UDP and MPTCP work across two hosts, each rail carries only its own traffic,
# the management link reaches the root namespace, and NETLAB_* variables are set by exec.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 2 }
J
cat > "$T/inner.sh" <<'S'
set -eu
X() { "$NETLAB" exec "$@"; }
[ "$("$NETLAB" hosts | tr '\n' ' ')" = "a b " ] || { echo "FAIL: hosts"; exit 1; }
env_a=$(X a -- env)
echo "$env_a" | grep -qx 'NETLAB_ADDRS=198.18.0.1,198.18.1.1' || { echo "FAIL: NETLAB_ADDRS"; exit 1; }
echo "$env_a" | grep -qx 'SCTPMPI_ADDRS=198.18.0.1,198.18.1.1' || { echo "FAIL: SCTPMPI_ADDRS"; exit 1; }
echo "$env_a" | grep -qx 'NETLAB_HOST=a' || { echo "FAIL: NETLAB_HOST"; exit 1; }
mg=$(echo "$env_a" | sed -n 's/^NETLAB_MGMT_ADDR=//p'); gw=$(echo "$env_a" | sed -n 's/^NETLAB_MGMT_GW=//p')
# /sys shows the host's own interfaces (ip netns exec semantics)
X a -- ls /sys/class/net | grep -qx rail1 || { echo "FAIL: /sys not remounted"; exit 1; }
# UDP on each rail
X b -- "$NLPROBE" echo 7000 3 & E=$!
sleep 0.2
X a -- "$NLPROBE" rtt 198.18.0.2 7000 20 1000 | grep -q 'recv=20 ' || { echo "FAIL: UDP rail 0"; exit 1; }
X a -- "$NLPROBE" rtt 198.18.1.2 7000 20 1000 | grep -q 'recv=20 ' || { echo "FAIL: UDP rail 1"; exit 1; }
echo "ok: UDP on both rails"
# management link to the root namespace (not emulated, not counted by the forwarder)
"$NLPROBE" echo 7100 3 & M=$!
sleep 0.2
X a -- "$NLPROBE" rtt "$gw" 7100 5 1000 | grep -q 'recv=5 ' || { echo "FAIL: management link from $mg to $gw"; exit 1; }
echo "ok: management link $mg -> $gw"
wait $E $M
r1_before=$("$NETLAB" stats | grep '^tun rail=1')
tx1_before=$(X a -- cat /sys/class/net/rail1/statistics/tx_packets)
# TCP on rail 0
X b -- "$NLPROBE" tsink 7001 > tcp.out & S=$!
sleep 0.2
X a -- "$NLPROBE" tsend 198.18.0.2 7001 0.5 >/dev/null
wait $S
grep -q 'bytes=[1-9]' tcp.out || { echo "FAIL: TCP"; cat tcp.out; exit 1; }
echo "ok: TCP $(cat tcp.out)"
# MPTCP on rail 0
X b -- "$NLPROBE" tsink 7002 mptcp > mptcp.out & S=$!
sleep 0.2
X a -- "$NLPROBE" tsend 198.18.0.2 7002 0.5 mptcp >/dev/null
wait $S
grep -q 'bytes=[1-9].*mptcp=1' mptcp.out || { echo "FAIL: MPTCP"; cat mptcp.out; exit 1; }
echo "ok: MPTCP $(cat mptcp.out)"
# UDP blast on rail 0
X b -- "$NLPROBE" sink 7003 2 > udp.out & S=$!
sleep 0.2
X a -- "$NLPROBE" blast 198.18.0.2 7003 2000 20000 1000 >/dev/null
wait $S
grep -q 'recv=2000 ' udp.out || { echo "FAIL: UDP blast"; cat udp.out; exit 1; }
echo "ok: UDP $(cat udp.out)"
# rail isolation: nothing of the above appeared on rail 1
r1_after=$("$NETLAB" stats | grep '^tun rail=1')
tx1_after=$(X a -- cat /sys/class/net/rail1/statistics/tx_packets)
[ "$r1_before" = "$r1_after" ] || { echo "FAIL: rail 1 forwarder counters moved: $r1_before / $r1_after"; exit 1; }
[ "$tx1_before" = "$tx1_after" ] || { echo "FAIL: rail 1 interface sent packets: $tx1_before -> $tx1_after"; exit 1; }
r0=$("$NETLAB" stats | grep '^link rail=0 src=a dst=b')
echo "ok: rail 1 untouched while rail 0 carried: $r0"
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run "$T/topo.json" -- nice -n -5 bash "$T/inner.sh"
rc=$?
[ $rc = 0 ] || fail "inner script exited $rc"
ok "basic"
