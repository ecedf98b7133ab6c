#!/bin/bash
# netlab benchmark: forwarder capacity (packets/s and Gbit/s through the forwarder, from its own
# counters) with one TCP stream, two opposite TCP streams and an unpaced UDP blast, at MTU 1500
# and 9000; and the RTT the forwarder adds at zero configured delay (UDP ping-pong over a rail
# versus over the un-emulated management veth between the same two hosts).
# Env: NETLAB, NLPROBE (paths), NETLAB_BENCH_SECS (default 3).
set -u
NETLAB=${NETLAB:-netlab}; NLPROBE=${NLPROBE:-nlprobe}; SECS=${NETLAB_BENCH_SECS:-3}
[ "$(id -u)" = 0 ] || { echo "netlab bench: must run as root"; exit 77; }
T=$(mktemp -d /tmp/netlab-bench.XXXXXX); trap 'rm -rf "$T"' EXIT
export NETLAB NLPROBE SECS
for mtu in 1500 9000; do
  cat > "$T/topo.json" <<J
{ "hosts": ["a", "b"], "rails": 1, "mtu": $mtu }
J
  cat > "$T/inner.sh" <<'S'
X() { "$NETLAB" exec "$@"; }
tot() { "$NETLAB" stats | awk '/^link/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "fwd_pkts") p += kv[2]; if (kv[1] == "fwd_bytes") b += kv[2] } } END { printf "%.0f %.0f\n", p, b }'; }
FWD=$(sed -n 's/^fwd_pid=//p' "$NETLAB_RUN/info")
cpu() { awk '{ print $14 + $15 }' "/proc/$FWD/stat"; }  # forwarder user+system ticks
measure() { # label, then the command that makes traffic
  local label=$1; shift
  read p0 b0 < <(tot); t0=$(date +%s.%N); c0=$(cpu)
  "$@"
  t1=$(date +%s.%N); c1=$(cpu); read p1 b1 < <(tot)
  awk -v l="$label" -v m="$MTU" -v p=$((p1 - p0)) -v b=$((b1 - b0)) -v t0="$t0" -v t1="$t1" -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" \
    'BEGIN { s = t1 - t0; cs = c / hz; printf "| %s | %d | %.0f | %.2f | %.0f%% | %.2f | %.2f |\n", l, m, p / s, b * 8 / s / 1e9, 100 * cs / s, 1e6 * cs / p, b * 8 / cs / 1e9 }'
}
one_tcp() {
  X b -- "$NLPROBE" tsink 7001 >/dev/null & K=$!; sleep 0.2
  X a -- "$NLPROBE" tsend 198.18.0.2 7001 "$SECS" >/dev/null; wait $K
}
two_tcp() {
  X b -- "$NLPROBE" tsink 7002 >/dev/null & K1=$!; X a -- "$NLPROBE" tsink 7003 >/dev/null & K2=$!; sleep 0.2
  X a -- "$NLPROBE" tsend 198.18.0.2 7002 "$SECS" >/dev/null & S1=$!
  X b -- "$NLPROBE" tsend 198.18.0.1 7003 "$SECS" >/dev/null; wait $S1 $K1 $K2
}
udp() {
  X b -- "$NLPROBE" sink 7004 1 >/dev/null & K=$!; sleep 0.2
  X a -- "$NLPROBE" blast 198.18.0.2 7004 $((SECS * 400000)) 1e12 $((MTU - 28)) >/dev/null; wait $K
}
measure "1 TCP stream" one_tcp
measure "2 TCP streams, opposite directions" two_tcp
measure "UDP blast, unpaced, MTU-sized" udp
if [ "$MTU" = 1500 ]; then
  # probes at real-time priority 1 (below the forwarder's 10) so CPU contention from other
  # programs on the machine does not dominate a difference of tens of microseconds
  RT="chrt -f 1"; $RT true 2>/dev/null || RT=""
  X b -- $RT "$NLPROBE" echo 7000 2 & E=$!; sleep 0.2
  mg=$(X b -- sh -c 'echo $NETLAB_MGMT_ADDR')
  r=$(X a -- $RT "$NLPROBE" rtt 198.18.0.2 7000 2000 500); v=$(X a -- $RT "$NLPROBE" rtt "$mg" 7000 2000 500)
  wait $E
  echo "RTT through the forwarder (zero delay): $r"
  echo "RTT over the management veth (baseline): $v"
fi
S
  echo "== MTU $mtu"
  echo "| traffic | MTU | packets/s | Gbit/s | forwarder CPU | CPU us/packet | Gbit/s per forwarder core |"
  echo "|---|---|---|---|---|---|---|"
  MTU=$mtu "$NETLAB" run "$T/topo.json" -- bash "$T/inner.sh"
done
