#!/usr/bin/env bash
# mh_bw.sh BUILD — osu_bw-style bandwidth by message size (issue 7 experiment a) on netlab:
# 2 hosts x 2 rails, every host interface a 1 Gbit/s NIC, 0.1 ms each way.  SCTP on one rail
# (SCTPMPI_SCTP_MULTIHOME=off: the AF_CONN mode on rail 0), SCTP multihomed without CMT, and
# with CMT (on, rpv2, dac); bench/p2p/bw with window 64.  Prints a table in MB/s (10^6 B/s).
# Needs root.  Raw outputs in $OUT (default /tmp/mh_bw).
set -eu
B=$(cd "${1:?usage: mh_bw.sh BUILD}" && pwd)
OUT=${OUT:-/tmp/mh_bw}
SIZES=${SIZES:-4096,16384,65536,262144,1048576,4194304}
mkdir -p "$OUT"
cat >"$OUT/topo.json" <<'J'
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": 0.1 },
  "nic": { "rate_mbit": 1000 } }
J
run() { # NAME ENV...
  local name=$1; shift
  timeout 600 "$B/tools/netlab/netlab" run "$OUT/topo.json" -- env "$@" \
    "$B/tools/mpiexec/mpiexec" --netlab "$OUT/topo.json" -n 2 --transport sctp --timeout 500 \
    "$B/bench/p2p/bw" --csv --sizes "$SIZES" --iters 10 --skip 2 --iters-large 4 --skip-large 1 \
    >"$OUT/$name.csv" 2>&1 || echo "$name: failed (see $OUT/$name.csv)" >&2
}
run one-rail SCTPMPI_SCTP_MULTIHOME=off
run mh-cmt-off SCTPMPI_SCTP_CMT=off
run mh-cmt-on SCTPMPI_SCTP_CMT=on
run mh-cmt-rpv2 SCTPMPI_SCTP_CMT=rpv2
run mh-cmt-dac SCTPMPI_SCTP_CMT=dac
python3 - "$OUT" <<'P'
import sys, os, csv
out = sys.argv[1]
names = ["one-rail", "mh-cmt-off", "mh-cmt-on", "mh-cmt-rpv2", "mh-cmt-dac"]
res = {}
for n in names:
    res[n] = {}
    for line in open(os.path.join(out, n + ".csv")):
        p = line.strip().split(",")
        if len(p) >= 5 and p[0] == "bw" and p[1].isdigit():  # bw,size,iters,window,mb_per_s[,cpu_s_per_gb]
            res[n][int(p[1])] = float(p[4])
sizes = sorted({s for n in names for s in res[n]})
print("| size | " + " | ".join(names) + " | CMT on / one rail |")
print("|---" * (len(names) + 2) + "|")
for s in sizes:
    row = [f"{res[n][s]:.1f}" if s in res[n] else "-" for n in names]
    ratio = (f"{res['mh-cmt-on'][s] / res['one-rail'][s]:.2f}"
             if s in res["mh-cmt-on"] and s in res["one-rail"] and res["one-rail"][s] else "-")
    print(f"| {s} | " + " | ".join(row) + f" | {ratio} |")
P
