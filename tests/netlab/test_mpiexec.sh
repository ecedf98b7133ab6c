#!/usr/bin/env bash
# test_mpiexec.sh MPIEXEC PROG TRANSPORT — an MPI job on emulated hosts: `mpiexec --netlab`
# places 4 ranks on 2 hosts (rank i on host i mod 2) joined by a 1 ms, 1%-loss link; the
# program must pass, the link's counters must show the traffic crossed it, and no namespace
# of the run may be left.  Skips (77) without root, /dev/net/tun or ip netns.
set -u
mpiexec=$1 prog=$2 transport=$3
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: no ip netns"; exit 77; }
tmp=$(mktemp -d /tmp/sm-nlmpi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/topo.json" <<'JSON'
{ "hosts": ["h0", "h1"], "rails": 1, "defaults": { "delay_ms": 1, "loss": 0.01 } }
JSON
before=$(ip netns list | wc -l)
# mpiexec finds NETLAB_RUN set and uses this run; `netlab stats` afterwards shows the counters
netlab=$(dirname "$mpiexec")/../netlab/netlab
"$netlab" run "$tmp/topo.json" -- sh -c "
  '$mpiexec' --netlab '$tmp/topo.json' -n 4 --transport $transport --timeout 240 '$prog' &&
  '$netlab' stats" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { echo "FAIL: job exited with $rc"; exit 1; }
grep -q " No Errors" "$tmp/out" || { echo "FAIL: no ' No Errors'"; exit 1; }
bytes=$(awk '/^link rail=0 src=h0 dst=h1/ { for (i = 1; i <= NF; i++) if ($i ~ /^fwd_bytes=/) { sub("fwd_bytes=", "", $i); print $i } }' "$tmp/out")
[ "${bytes:-0}" -gt 10000000 ] || { echo "FAIL: only ${bytes:-0} bytes crossed the emulated link h0->h1"; exit 1; }
lost=$(awk '/^link rail=0 src=h0 dst=h1/ { for (i = 1; i <= NF; i++) if ($i ~ /^drop_loss=/) { sub("drop_loss=", "", $i); print $i } }' "$tmp/out")
[ "${lost:-0}" -gt 0 ] || { echo "FAIL: the 1% loss dropped nothing"; exit 1; }
after=$(ip netns list | wc -l)
[ "$after" -le "$before" ] || { echo "FAIL: namespaces left behind"; ip netns list; exit 1; }
echo "job passed on emulated hosts"
