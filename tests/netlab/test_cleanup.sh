#!/bin/bash
# netlab test: nothing of ours (namespace, interface, state directory, process) is left after
# a normal run, after SIGTERM to `netlab run`, after SIGKILL to the forwarder, after SIGKILL to
# the supervisor (the forwarder cleans up), and after SIGKILL to both followed by `netlab gc`.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 2 }
J
# start_bg: netlab run in the background with a command that starts sleepers in both hosts
start_bg() {
  rm -f "$T/run" "$T/pids"
  "$NETLAB" run "$T/topo.json" -- bash -c '
    "$NETLAB" exec a -- bash -c "echo \$\$ >> '"$T"'/pids; exec sleep 1000" &
    "$NETLAB" exec b -- bash -c "echo \$\$ >> '"$T"'/pids; exec sleep 1000" &
    sleep 0.3; echo "$NETLAB_RUN" > '"$T"'/run.tmp; mv '"$T"'/run.tmp '"$T"'/run; exec sleep 1000' &
  SUP=$!
  BGPIDS="$BGPIDS $SUP"
  for _ in $(seq 100); do [ -s "$T/run" ] && break; sleep 0.05; done
  [ -s "$T/run" ] || fail "run did not start"
  RUN=$(cat "$T/run"); PREFIX=$(basename "$RUN")
  FWD=$(sed -n 's/^fwd_pid=//p' "$RUN/info"); CMDPG=$(sed -n 's/^cmd_pgid=//p' "$RUN/info")
  SLEEPERS=$(cat "$T/pids")
}
# gone WHAT: asserts that nothing of the current run is left
gone() {
  for _ in $(seq 50); do
    left=$(leftovers "$PREFIX")
    for p in $SLEEPERS $FWD $CMDPG; do kill -0 "$p" 2>/dev/null && left="$left process $p"; done
    [ -z "$left" ] && { ok "$1: nothing left of $PREFIX"; return; }
    sleep 0.1
  done
  fail "$1: left behind: $left"
}
export NETLAB
# 1. normal run, with a process left running inside a host
"$NETLAB" run "$T/topo.json" -- bash -c 'echo "$NETLAB_RUN" > '"$T"'/run; "$NETLAB" exec a -- bash -c "echo \$\$ > '"$T"'/pids; exec sleep 1000" & sleep 0.3' || fail "normal run"
RUN=$(cat "$T/run"); PREFIX=$(basename "$RUN"); FWD=""; CMDPG=""; SLEEPERS=$(cat "$T/pids")
gone "normal exit"
# 2. SIGTERM to netlab run
start_bg; kill -TERM "$SUP"; wait "$SUP"; rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit $rc, want 143"
gone "SIGTERM"
# 3. SIGKILL to the forwarder: the supervisor stops the command and tears down
start_bg; kill -KILL "$FWD"; wait "$SUP"; rc=$?
[ $rc = 125 ] || fail "forwarder killed: exit $rc, want 125"
gone "SIGKILL to the forwarder"
# 4. SIGKILL to the supervisor: the forwarder notices and tears down
start_bg; kill -KILL "$SUP"; wait "$SUP" 2>/dev/null
gone "SIGKILL to the supervisor"
# 5. SIGKILL to both: leftovers stay until netlab gc
start_bg; kill -STOP "$FWD"; kill -KILL "$SUP"; kill -KILL "$FWD"; wait "$SUP" 2>/dev/null
sleep 0.2
[ -n "$(leftovers "$PREFIX")" ] || fail "expected leftovers after killing both"
"$NETLAB" gc
gone "SIGKILL to both, then netlab gc"
ok "cleanup"
