#!/usr/bin/env bash
# test_cmt_loss.sh MPIEXEC PROG NETLAB — multihoming test (c): 2 hosts x 2 rails, SCTP multihomed
# with CMT on (SCTPMPI_SCTP_CMT=on) and 2% loss on rail 1 (both directions): the checked stream
# of 10,000 messages arrives whole, and both the emulator's link counters and the SCTP
# statistics of rank 0 (its local path counters) show that both rails carried data.
# MH_CMT=dac runs it with delayed ack for CMT instead (the native engine must report dac 1).
. "$(dirname "$0")/mh_lib.sh" "$@"
cat >"$T/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.5 },
  "links": [ {"link": "h0-h1@1", "loss": 0.02} ] }
J
cmt=${MH_CMT:-on}
run_job "$T/topo.json" 150 SCTPMPI_SCTP_CMT=$cmt SCTPMPI_STATS=1 -- -n 10000 -p 0 -g 5 ||
  fail "netlab run failed"
grep -q "rank 1: 10000 of 10000 messages intact and in order, 0 bad" "$T/out" ||
  fail "the stream did not arrive whole"
grep -q " No Errors" "$T/out" || fail "rank 0 did not report ' No Errors'"
lost=$(link_field 1 h0 h1 drop_loss)
[ "${lost:-0}" -gt 0 ] || fail "the 2% loss on rail 1 dropped nothing"
for rail in 0 1; do
  b=$(link_field $rail h0 h1 fwd_bytes)
  [ "${b:-0}" -gt 1000000 ] || fail "rail $rail carried only ${b:-0} bytes from h0 to h1: no CMT"
  # (grep -o: lines of the two ranks' statistics may interleave on the shared stderr)
  if [ "${SCTPMPI_SCTP_BACKEND:-native}" = usrsctp ]; then
    out=$(grep -o "sctpmpi\[0\] sctp local path $rail ([0-9.]*): packets out [0-9]* in [0-9]*, bytes out [0-9]*" "$T/out" |
          head -1 | sed 's/.*bytes out //')
    [ "${out:-0}" -gt 1000000 ] || fail "rank 0's SCTP statistics: path $rail sent only ${out:-0} bytes"
  else # our engine counts packets per path; 1,000 full packets = 1.4 MB
    out=$(grep -o "\[rank 0\] sctpn:   path [0-9] to 198.18.$rail.2[ a-z]*state [0-9] cwnd [0-9]* srtt [0-9]*us rto [0-9]*us packets out [0-9]*" "$T/out" |
          head -1 | sed 's/.*packets out //')
    [ "${out:-0}" -gt 1000 ] || fail "rank 0's SCTP statistics: path to 198.18.$rail.2 sent only ${out:-0} packets"
    grep -q "\[rank 0\] sctpn: rank 1 assoc [0-9]* (ours):.* cmt 1" "$T/out" || fail "CMT was not negotiated"
    if [ "$cmt" = dac ]; then
      grep -q "\[rank 0\] sctpn: rank 1 assoc [0-9]* (ours):.* cmt 1 dac 1" "$T/out" ||
        fail "CMT's delayed ack (dac) is not in use"
    fi
  fi
  eval "b$rail=$b"
done
echo "PASS: CMT ($cmt) with 2% loss on rail 1: 10,000 messages intact; h0->h1 bytes rail 0 $b0," \
  "rail 1 $b1 (loss dropped $lost packets)"
