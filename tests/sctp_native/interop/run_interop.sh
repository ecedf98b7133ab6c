#!/usr/bin/env bash
# run_interop.sh — runs one interop case: a server peer and a client peer (usrsctp_peer or
# native_peer) over UDP, and passes only if both exit 0 (each checks every message it receives
# and the graceful close itself).
#
#   run_interop.sh [--multihome] SERVER_BIN CLIENT_BIN [ARG...]
#
# An ARG goes to both peers, except "S:ARG" (server only) and "C:ARG" (client only).
# Without --multihome both peers run on 127.0.0.1.  With --multihome (needs root, unshare,
# nsenter and ip; exits 77 = skipped without them) the script runs in a private network
# namespace holding the server, and the client runs in a second one; two veth pairs join them,
# two subnets, so each side has two addresses and every path has its own source address:
#   server 198.19.91.1 and 198.19.92.1   <->   client 198.19.91.2 and 198.19.92.2
# The client connects to 198.19.91.1.  (On one loopback usrsctp, whose UDP socket is unbound,
# sends every packet from the same source address and no path can be killed alone.)
set -u
multihome=0
if [ "${1:-}" = --multihome ]; then
  multihome=1
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: $0 [--multihome] SERVER_BIN CLIENT_BIN [ARG...]" >&2
  exit 2
fi

if [ "$multihome" = 1 ] && [ "${INTEROP_IN_NETNS:-}" != 1 ]; then
  for tool in unshare nsenter ip; do
    if ! command -v $tool >/dev/null; then
      echo "run_interop.sh: --multihome needs $tool: skipped" >&2
      exit 77
    fi
  done
  if [ "$(id -u)" != 0 ]; then
    echo "run_interop.sh: --multihome needs root (network namespaces): skipped" >&2
    exit 77
  fi
  exec unshare -n env INTEROP_IN_NETNS=1 bash "$0" --multihome "$@"
fi

dir=$(mktemp -d /tmp/interop.XXXXXX)
server_pid=
holder_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  if [ -n "$holder_pid" ]; then
    kill "$holder_pid" 2>/dev/null
    wait "$holder_pid" 2>/dev/null
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

client_ns=() # the command prefix that runs the client in its namespace
if [ "$multihome" = 1 ]; then
  unshare -n sleep 600 &
  holder_pid=$!
  for _ in $(seq 100); do # until the holder is in its own namespace
    [ "$(readlink /proc/$holder_pid/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
    sleep 0.02
  done
  set -e
  trap 'echo "run_interop.sh: cannot set up the namespaces" >&2' ERR
  ip link set lo up
  nsenter -t "$holder_pid" -n ip link set lo up
  for i in 1 2; do
    ip link add "srv$i" type veth peer name "cli$i"
    ip link set "cli$i" netns "$holder_pid"
    ip addr add "198.19.9$i.1/24" dev "srv$i"
    ip link set "srv$i" up
    nsenter -t "$holder_pid" -n ip addr add "198.19.9$i.2/24" dev "cli$i"
    nsenter -t "$holder_pid" -n ip link set "cli$i" up
  done
  set +e
  trap - ERR
  client_ns=(nsenter -t "$holder_pid" -n)
  server_addr=198.19.91.1
else
  server_addr=127.0.0.1
fi

server_bin=$1
client_bin=$2
shift 2
server_args=()
client_args=()
# the native peer keeps a packet trace; its last lines are shown when the case fails
case "$(basename "$server_bin")" in
  native_peer*) server_args+=(--trace-file "$dir/server.trace") ;;
esac
case "$(basename "$client_bin")" in
  native_peer*) client_args+=(--trace-file "$dir/client.trace") ;;
esac
for a in "$@"; do
  case "$a" in
    S:*) server_args+=("${a#S:}") ;;
    C:*) client_args+=("${a#C:}") ;;
    *) server_args+=("$a"); client_args+=("$a") ;;
  esac
done

"$server_bin" --server --port-file "$dir/port" "${server_args[@]}" \
  >"$dir/server.out" 2>"$dir/server.err" &
server_pid=$!
for _ in $(seq 200); do
  [ -s "$dir/port" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.05
done
if [ ! -s "$dir/port" ]; then
  echo "run_interop.sh: the server did not start" >&2
  cat "$dir/server.out" "$dir/server.err" >&2
  exit 1
fi
port=$(cat "$dir/port")
echo "== server $(basename "$server_bin") on UDP port $port: ${server_args[*]}"
echo "== client $(basename "$client_bin"): ${client_args[*]}"

"${client_ns[@]}" "$client_bin" --client --remote "$server_addr" --remote-port "$port" \
  "${client_args[@]}" >"$dir/client.out" 2>"$dir/client.err"
client_rc=$?
wait "$server_pid"
server_rc=$?
server_pid=

echo "== server (exit $server_rc)"
cat "$dir/server.out" "$dir/server.err"
echo "== client (exit $client_rc)"
cat "$dir/client.out" "$dir/client.err"
if [ "$server_rc" = 0 ] && [ "$client_rc" = 0 ]; then
  echo "interop PASSED"
  exit 0
fi
for t in server client; do
  if [ -s "$dir/$t.trace" ]; then
    echo "== the last 60 datagrams of the $t (native_peer --trace)"
    tail -n 60 "$dir/$t.trace"
  fi
done
echo "interop FAILED (server exit $server_rc, client exit $client_rc)"
exit 1
