#!/bin/bash
# netlab test: per-link capture (--pcap-dir) writes one valid pcap per directed link holding
# exactly the packets delivered on it.
. "$(dirname "$0")/lib.sh"
cat > "$T/topo.json" <<'J'
{ "hosts": ["a", "b"], "rails": 2 }
J
cat > "$T/inner.sh" <<'S'
set -eu
"$NETLAB" exec b -- "$NLPROBE" echo 7000 1 & E=$!
sleep 0.2
"$NETLAB" exec a -- "$NLPROBE" rtt 198.18.0.2 7000 100 1000 >/dev/null
wait $E
S
cd "$T" && NETLAB="$NETLAB" NLPROBE="$NLPROBE" "$NETLAB" run --pcap-dir "$T/cap" "$T/topo.json" -- bash "$T/inner.sh" || fail "run with capture"
ls "$T/cap"
python3 - "$T/cap" <<'P' || fail "capture contents"
import os, struct, sys
d = sys.argv[1]
def count(name):
    b = open(os.path.join(d, name), 'rb').read()
    magic, vmaj, vmin, _, _, snap, lt = struct.unpack('<IHHiIII', b[:24])
    assert magic == 0xa1b23c4d and lt == 101, 'nanosecond pcap, raw IP'
    off, n = 24, 0
    while off < len(b):
        _, _, cap, ln = struct.unpack('<IIII', b[off:off + 16])
        pkt = b[off + 16: off + 16 + cap]
        assert pkt[0] >> 4 == 4 and pkt[9] == 17, 'IPv4 UDP'
        off += 16 + cap; n += 1
    return n
assert count('rail0-a-b.pcap') == 100 and count('rail0-b-a.pcap') == 100, 'one record per probe and echo'
assert count('rail1-a-b.pcap') == 0
print('ok: rail0-a-b.pcap and rail0-b-a.pcap hold 100 packets each, rail 1 none')
P
ok "capture"
