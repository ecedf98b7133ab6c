#!/bin/bash
# guest-netns.sh NLINKS — run inside one test guest (vmlab.sh, VM_NETNS=1): two network
# namespaces n1 and n2 stand for two hosts, so that one guest is enough for the kernel SCTP
# tests (every packet between them crosses a veth pair, where tc netem applies):
#   link L (1..NLINKS): veth pair, n1 10.L.0.1/24 <-> n2 10.L.0.2/24
#   host link: when the guest has a NIC to the host (MAC 52:54:00:00:d5:01, a TAP device on
#     the host at 10.213.0.254), a bridge in the guest joins it with one veth per namespace:
#     n1 10.213.0.1, n2 10.213.0.2 (ranks on the host reach the ranks in the namespaces)
# In both namespaces the kernel's SCTP-in-UDP port (net.sctp.udp_port, RFC 6951) is 9899.
set -eu
links=${1:-2}
for n in 1 2; do
  ip netns add "n$n"
  ip -n "n$n" link set lo up
  ip netns exec "n$n" sysctl -q -w net.sctp.udp_port=9899
done
for l in $(seq 1 "$links"); do
  ip link add "l${l}a" netns n1 type veth peer name "l${l}b" netns n2
  ip -n n1 addr add "10.$l.0.1/24" dev "l${l}a"
  ip -n n2 addr add "10.$l.0.2/24" dev "l${l}b"
  ip -n n1 link set "l${l}a" up
  ip -n n2 link set "l${l}b" up
done
for dev in /sys/class/net/*; do
  [ "$(cat "$dev/address")" = 52:54:00:00:d5:01 ] || continue
  d=${dev##*/}
  ip addr flush dev "$d"
  ip link add br213 type bridge
  ip link set "$d" master br213
  ip link set "$d" up
  ip link set br213 up
  for n in 1 2; do
    ip link add "h$n" type veth peer name e213 netns "n$n"
    ip link set "h$n" master br213
    ip link set "h$n" up
    ip -n "n$n" addr add "10.213.0.$n/24" dev e213
    ip -n "n$n" link set e213 up
  done
done
echo "namespaces n1, n2: $links link(s)$(ip link show br213 >/dev/null 2>&1 && echo ', host link 10.213.0.0/24')"
