#!/usr/bin/env bash
# mh_failover.sh BUILD [DURATION] — failover timeline (issue 7 experiment c, thesis Figs.
# 6.1-6.3) on netlab: 2 hosts x 2 rails, 1 Gbit/s NICs, 0.1 ms each way; rail 0 down at 5 s and
# up at 15 s, rail 1 down at 25 s (times after the network came up; the job starts ~0.3 s
# later).  For SCTPMPI_SCTP_FAILOVER = wan, lan and SCTPMPI_SCTP_CMT = off, on: prints a table of
# Mbit/s per second (mean of ten 100 ms bins) and the longest stall per configuration.
# Needs root.  Writes the raw per-100 ms series to $OUT (default /tmp/mh_failover).
set -eu
B=$(cd "${1:?usage: mh_failover.sh BUILD [DURATION]}" && pwd)
DUR=${2:-32}
OUT=${OUT:-/tmp/mh_failover}
mkdir -p "$OUT"
cat >"$OUT/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.1 },
  "nic": { "rate_mbit": 1000 },
  "events": [ {"at": 5, "do": "down h0-h1@0"}, {"at": 15, "do": "up h0-h1@0"},
              {"at": 25, "do": "down h0-h1@1"} ] }
J
for fo in wan lan; do
  for cmt in off on; do
    name="$fo-cmt$cmt"
    timeout $((DUR + 60)) "$B/tools/netlab/netlab" run "$OUT/topo.json" -- \
      env SCTPMPI_SCTP_FAILOVER=$fo SCTPMPI_SCTP_CMT=$cmt \
      "$B/tools/mpiexec/mpiexec" --netlab "$OUT/topo.json" -n 2 --transport sctp \
      --timeout $((DUR + 40)) "$B/bench/multihome/mh_timeline" "$DUR" >"$OUT/$name.txt" 2>&1 || true
  done
done
python3 - "$OUT" "$DUR" <<'P'
import sys, os
out, dur = sys.argv[1], int(float(sys.argv[2]))
names = [f"{fo}-cmt{c}" for fo in ("wan", "lan") for c in ("off", "on")]
series, stall = {}, {}
for n in names:
    s = {}
    for line in open(os.path.join(out, n + ".txt")):
        p = line.split()
        if len(p) == 2 and not line.startswith("#"):
            try: s[float(p[0])] = float(p[1])
            except ValueError: pass
        if line.startswith("# longest stall"): stall[n] = line[2:].strip()
    series[n] = s
print("| second | " + " | ".join(names) + " |")
print("|---" * (len(names) + 1) + "|")
for sec in range(dur):
    row = []
    for n in names:
        v = [series[n].get(round(sec + k / 10, 1)) for k in range(10)]
        v = [x for x in v if x is not None]
        row.append(f"{sum(v) / len(v):.0f}" if v else "-")
    print(f"| {sec}-{sec + 1} | " + " | ".join(row) + " |")
for n in names: print(f"{n}: {stall.get(n, 'no result (see ' + n + '.txt)')}")
P
