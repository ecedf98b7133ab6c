#!/usr/bin/env bash
# netlab_stripe.sh MODE MPIEXEC PROG [ARGS...] — an MPI job between two emulated hosts with two
# rails; rank 0 on h0, rank 1 on h1.  Passes when the job prints " No Errors" and netlab's
# counters for h0 -> h1 show:
#   MODE=slow   SCTPMPI_TCP_STRIPE=1, rail 0 at 200 Mbit/s, rail 1 at 20 Mbit/s: both rails
#               carried at least 1 MB, and the slow rail less than a third of the bytes (an even
#               split would give it half; its fair share by rate is 1/11)
#   MODE=sctp-slow  the same over the native SCTP backend with SCTPMPI_SCTP_STRIPE=1 (one
#               single-homed association per rail); rank 0's statistics must show two rails
#   MODE=mptcp  SCTPMPI_TCP_MPTCP=1, both rails at 100 Mbit/s, an MPTCP endpoint on rail 1 of
#               each host (ip mptcp endpoint add 198.18.1.X dev rail1 signal): both rails
#               carried at least 1 MB
# Skips (77) without root, /dev/net/tun or ip netns.
set -u
mode=$1 mpiexec=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: no ip netns"; exit 77; }
netlab=$(dirname "$mpiexec")/../netlab/netlab
tmp=$(mktemp -d /tmp/sm-stripe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
setup=true transport=tcp
case $mode in
slow|sctp-slow)
  if [ "$mode" = slow ]; then
    export SCTPMPI_TCP_STRIPE=1
  else
    export SCTPMPI_SCTP_STRIPE=1 SCTPMPI_SCTP_BACKEND=native
    transport=sctp
  fi
  cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5 },
  "links": [ {"link": "*@0", "rate_mbit": 200}, {"link": "*@1", "rate_mbit": 20} ] }
JSON
  ;;
mptcp)
  export SCTPMPI_TCP_MPTCP=1
  cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5, "rate_mbit": 100 } }
JSON
  # one more subflow per connection, on rail 1: each host announces its rail-1 address
  setup="for i in 0 1; do
    '$netlab' exec h\$i -- ip mptcp limits set subflow 2 add_addr_accepted 2 &&
    '$netlab' exec h\$i -- ip mptcp endpoint add 198.18.1.\$((i + 1)) dev rail1 signal || exit 1
  done"
  ;;
*) echo "usage: $0 slow|sctp-slow|mptcp MPIEXEC PROG [ARGS...]"; exit 2 ;;
esac
export SCTPMPI_STATS=1
args=$(printf " '%s'" "$@")
"$netlab" run "$tmp/topo.json" -- sh -c "$setup
  '$mpiexec' --netlab '$tmp/topo.json' -n 2 --transport $transport --timeout 240 $args &&
  '$netlab' stats" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { echo "sm-test FAILED: job exited with $rc"; exit 1; }
grep -q " No Errors" "$tmp/out" || { echo "sm-test FAILED: no ' No Errors'"; exit 1; }
fwd() { awk -v r="$1" '$1 == "link" && $2 == "rail=" r && $3 == "src=h0" && $4 == "dst=h1" {
          for (i = 1; i <= NF; i++) if ($i ~ /^fwd_bytes=/) { sub("fwd_bytes=", "", $i); print $i } }' "$tmp/out"; }
b0=$(fwd 0) b1=$(fwd 1)
echo "sm-test stripe: h0 -> h1 rail 0 carried ${b0:-0} bytes, rail 1 ${b1:-0} bytes"
[ "${b0:-0}" -ge 1000000 ] || { echo "sm-test FAILED: rail 0 carried ${b0:-0} bytes"; exit 1; }
[ "${b1:-0}" -ge 1000000 ] || { echo "sm-test FAILED: rail 1 carried ${b1:-0} bytes"; exit 1; }
if [ "$transport" = sctp ]; then
  n=$(grep -c '^\[rank 0\] sctpn: rank 1 rail [01]: sent' "$tmp/out")
  [ "$n" = 2 ] || { echo "sm-test FAILED: rank 0's statistics show $n rails to rank 1, not 2"; exit 1; }
fi
if [ "$mode" != mptcp ]; then
  share=$(( 100 * b1 / (b0 + b1) ))
  echo "sm-test stripe: the 10x slower rail carried ${share}% of the bytes"
  [ "$share" -lt 33 ] || { echo "sm-test FAILED: the slow rail got ${share}% (>= 33%)"; exit 1; }
fi
echo "sm-test stripe: PASSED"
