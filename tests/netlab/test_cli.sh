#!/bin/bash
# netlab test: the command line — topology checking and its error messages, the one-line error
# when not root, selectors and `netlab set` validation against a live run, stats --json.
. "$(dirname "$0")/lib.sh"
cat > "$T/good.json" <<'J'
{ "hosts": ["a", "b", "c"], "rails": 2, "mtu": [1500, 9000],
  # comments are allowed
  "defaults": { "delay_ms": 1 },
  "links": [ {"link": "a-b@0", "delay_ms": 5, "loss": 0.01},
             {"link": "c>a", "rate_mbit": 10, "queue_bytes": 30000},
             {"link": "b@1", "ge_burst": 3, "ge_loss": 0.02} ],
  "nic": { "rate_mbit": 1000 }, "nics": [ {"host": "c", "rail": 1, "rate_mbit": 10000} ],
  "events": [ {"at": 5, "do": "down a@1"}, {"at": 15, "do": "up a@1"} ] }
J
out=$("$NETLAB" check "$T/good.json") || fail "check good topology"
echo "$out" | grep -q '^link rail=0 src=b dst=a .*delay_ms=5 .*loss=0.01' || fail "pair selector"
echo "$out" | grep -q '^link rail=1 src=c dst=a .*delay_ms=1 .*rate_mbit=10 .*queue_bytes=30000' || fail "one-way selector"
echo "$out" | grep -q '^link rail=0 src=a dst=c .*rate_mbit=0 ' || fail "one-way selector leaked"
echo "$out" | grep -q '^link rail=1 src=c dst=b .*ge=1 ge_p=0.0068' || fail "ge_burst/ge_loss"
echo "$out" | grep -q '^nic rail=1 host=c rate_mbit=10000 ' || fail "nics"
echo "$out" | grep -q '^nic rail=1 host=b rate_mbit=1000 ' || fail "nic"
ok "check accepts a good topology"
bad() { # text expected-message
  printf '%s\n' "$1" > "$T/bad.json"
  msg=$("$NETLAB" check "$T/bad.json" 2>&1) && fail "accepted: $1"
  echo "$msg" | grep -q "$2" || fail "message for $1: $msg"
  [ "$(echo "$msg" | wc -l)" = 1 ] || fail "more than one line: $msg"
}
bad '{"hosts": ["a", "b"], "delay": 3}' "unknown top-level key 'delay'"
bad '{"hosts": ["a", "b"], "links": [{"link": "a-x", "loss": 0.1}]}' "no host named 'x'"
bad '{"hosts": ["a", "b"], "links": [{"link": "a-b@3"}]}' "bad rail"
bad '{"hosts": ["a", "b"], "defaults": {"loss": 2}}' "bad value '2' for loss"
bad '{"hosts": ["a", "b"], "defaults": {"lossy": 1}}' "unknown link parameter 'lossy'"
bad '{"hosts": ["a", "a"]}' "listed twice"
bad '{"hosts": ["a", "b"], "nic": {"speed": 1}}' "unknown NIC parameter 'speed'"
bad '{"hosts": ["a", "b"],}' "line 1"
bad '{"hosts": ["a", "b"], "events": [{"at": 1, "do": "unplug a"}]}' "commands are down"
bad '{"hosts": ["a", "b"], "events": [{"at": 1, "do": "set a-b loss=x"}]}' "bad value 'x' for loss"
ok "check rejects bad topologies with one-line messages"
if command -v setpriv >/dev/null; then
  msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$NETLAB" run "$T/good.json" -- true 2>&1); rc=$?
  [ $rc = 77 ] || fail "not root: exit $rc"
  [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q 'must run as root' || fail "not root message: $msg"
  ok "not root: $msg"
fi
if command -v unshare >/dev/null; then
  : > "$T/notun"
  msg=$(unshare -m bash -c "mount --bind '$T/notun' /dev/net/tun && '$NETLAB' run '$T/good.json' -- true" 2>&1); rc=$?
  [ $rc = 77 ] || fail "no /dev/net/tun: exit $rc ($msg)"
  [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q '/dev/net/tun is not available' || fail "no tun message: $msg"
  ok "no /dev/net/tun: $msg"
fi
cat > "$T/inner.sh" <<'S'
set -eu
"$NETLAB" set a-b@0 delay_ms=abc 2>/dev/null && { echo "FAIL: bad value accepted"; exit 1; }
"$NETLAB" set a-q 2>/dev/null && { echo "FAIL: bad selector accepted"; exit 1; }
"$NETLAB" set 'a>b@1' loss=0.5 jitter_ms=1 | grep -q '^ok 1 links' || { echo "FAIL: set"; exit 1; }
"$NETLAB" show 'a>b@1' | grep -q 'jitter_ms=1 reorder=0 loss=0.5' || { echo "FAIL: show"; exit 1; }
"$NETLAB" show 'b>a@1' | grep -q 'loss=0 ' || { echo "FAIL: set leaked to the other direction"; exit 1; }
"$NETLAB" stats --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["links"]) == 12 and len(d["tuns"]) == 6'
"$NETLAB" exec c -- sh -c 'cat /sys/class/net/rail1/mtu' | grep -qx 9000 || { echo "FAIL: rail MTU"; exit 1; }
"$NETLAB" info | grep -qx "mgmt_bridge=$(basename "$NETLAB_RUN")br" || { echo "FAIL: info"; exit 1; }
ip -o addr show dev "$(basename "$NETLAB_RUN")br" | grep -q "$("$NETLAB" info | sed -n 's/^mgmt_gw=//p')/24" || { echo "FAIL: bridge address"; exit 1; }
echo "ok: set / show / stats --json / rail MTU / info"
S
# netlab start / stop: a network that outlives the command that started it
RUN=$("$NETLAB" start "$T/good.json") || fail "netlab start"
STARTED="$RUN"
[ "$(NETLAB_RUN=$RUN "$NETLAB" hosts | wc -l)" = 3 ] || fail "hosts of a started run"
"$NETLAB" exec --run "$RUN" c -- true || fail "exec into a started run"
"$NETLAB" stop --run "$RUN" || fail "netlab stop"
[ -z "$(leftovers "$(basename "$RUN")")" ] || fail "leftovers after stop: $(leftovers "$(basename "$RUN")")"
ok "start / stop"
cd "$T" && NETLAB="$NETLAB" "$NETLAB" run "$T/good.json" -- bash "$T/inner.sh" || fail "control commands"
ok "cli"
