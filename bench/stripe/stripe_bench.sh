#!/usr/bin/env bash
# stripe_bench.sh [BUILD] [OUTDIR] — bandwidth by message size between two netlab hosts with two
# rails, each host NIC at 1 Gbit/s per rail (docs/benchmarks.md "Striping over two rails"):
#   tcp1    our TCP transport, one connection on rail 0 (SCTPMPI_TCP_STRIPE unset)
#   stripe  our TCP transport striped over both rails (SCTPMPI_TCP_STRIPE=1)
#   mptcp   our TCP transport on MPTCP sockets, one extra subflow on rail 1
#           (ip mptcp endpoint add 198.18.1.X dev rail1 signal in each host)
#   ompi2   Open MPI 4.1, ob1 + TCP BTL on both rails (btl_tcp_if_include rail0,rail1)
#   sctp1   our native SCTP transport on rail 0 alone (SCTPMPI_SCTP_ADDRS: one address a host)
#   sctpstripe  native SCTP striped over both rails (SCTPMPI_SCTP_STRIPE=1: one single-homed
#           association per rail, the engine spreads rendezvous segments like stripe)
# The program is bench/p2p/bw (osu_bw style, window 8, every message checked), built with our
# library and with mpicc.openmpi.  Prints one table, MB/s and the ratio to tcp1 measured in the
# same invocation (median of REPS runs, contenders interleaved: the machine is shared, so
# single runs are noisy), and the bytes each rail carried per contender (netlab counters).
# Environment: SIZES (default 65536,262144,1048576,4194304,16777216), WINDOW (8),
# ITERS (10, per size), REPS (3), CONTENDERS (tcp1 stripe mptcp ompi2 sctp1 sctpstripe),
# DELAY_MS (0.05),
# RATE (1000 Mbit/s per host interface).
set -u
build=$(realpath "${1:-build}")
out=${2:-/tmp/stripe-bench}
mkdir -p "$out"
out=$(realpath "$out")
src=$(cd "$(dirname "$0")/../.." && pwd)
netlab=$build/tools/netlab/netlab
mpiexec=$build/tools/mpiexec/mpiexec
SIZES=${SIZES:-65536,262144,1048576,4194304,16777216}
WINDOW=${WINDOW:-8} ITERS=${ITERS:-10} REPS=${REPS:-3}
CONTENDERS=${CONTENDERS:-tcp1 stripe mptcp ompi2 sctp1 sctpstripe}
[ "$(id -u)" = 0 ] || { echo "needs root (netlab)"; exit 77; }
[ -x "$netlab" ] && [ -x "$build/bench/p2p/bw" ] || { echo "build $build first"; exit 1; }

cat >"$out/topo.json" <<JSON
{ "hosts": ["h0", "h1"], "rails": 2, "defaults": { "delay_ms": ${DELAY_MS:-0.05} },
  "nic": { "rate_mbit": ${RATE:-1000} } }
JSON
printf 'h0 198.18.0.1\nh1 198.18.0.2\n' >"$out/rail0.addrs" # sctp1: each host's rail-0 address
if [[ " $CONTENDERS " == *" ompi2 "* ]]; then
  mpicc.openmpi -O2 -I"$src/bench/p2p" "$src/bench/p2p/bw.c" -o "$out/bw.ompi" ||
    { echo "mpicc.openmpi failed: dropping ompi2"; CONTENDERS=${CONTENDERS/ompi2/}; }
fi
run=$("$netlab" start "$out/topo.json" | tail -1) || { echo "netlab start failed"; exit 1; }
trap '"$netlab" stop --run "$run" >/dev/null 2>&1' EXIT
bridge=$("$netlab" info --run "$run" | sed -n 's/^mgmt_bridge=//p')
export NETLAB_RUN=$run
for i in 0 1; do # MPTCP: each host announces its rail-1 address; plain TCP ignores this
  "$netlab" exec h$i -- ip mptcp limits set subflow 2 add_addr_accepted 2
  "$netlab" exec h$i -- ip mptcp endpoint add 198.18.1.$((i + 1)) dev rail1 signal
done
cat >"$out/wrap-ompi.sh" <<W
#!/bin/sh
exec "$netlab" exec --run "$run" h\${OMPI_COMM_WORLD_RANK:?} -- "\$@"
W
chmod +x "$out/wrap-ompi.sh"

rail_bytes() { "$netlab" stats | awk -v r="$1" '$1 == "link" && $2 == "rail=" r && $3 == "src=h0" {
  for (i = 1; i <= NF; i++) if ($i ~ /^fwd_bytes=/) { sub("fwd_bytes=", "", $i); print $i } }'; }
: >"$out/rails.txt"
args=(--csv --sizes "$SIZES" --window "$WINDOW" --iters-large "$ITERS" --skip-large 2)
for rep in $(seq "$REPS"); do
for c in $CONTENDERS; do
  r0=$(rail_bytes 0) r1=$(rail_bytes 1)
  case $c in
  tcp1) env SCTPMPI_TCP_STRIPE=0 timeout 600 "$mpiexec" --netlab "$out/topo.json" -n 2 \
          --transport tcp --timeout 590 "$build/bench/p2p/bw" "${args[@]}" ;;
  stripe) env SCTPMPI_TCP_STRIPE=1 timeout 600 "$mpiexec" --netlab "$out/topo.json" -n 2 \
          --transport tcp --timeout 590 "$build/bench/p2p/bw" "${args[@]}" ;;
  mptcp) env SCTPMPI_TCP_MPTCP=1 timeout 600 "$mpiexec" --netlab "$out/topo.json" -n 2 \
          --transport tcp --timeout 590 "$build/bench/p2p/bw" "${args[@]}" ;;
  sctp1) env SCTPMPI_SCTP_ADDRS="$out/rail0.addrs" timeout 600 "$mpiexec" --netlab \
          "$out/topo.json" -n 2 --transport sctp --timeout 590 "$build/bench/p2p/bw" "${args[@]}" ;;
  sctpstripe) env SCTPMPI_SCTP_STRIPE=1 timeout 600 "$mpiexec" --netlab "$out/topo.json" -n 2 \
          --transport sctp --timeout 590 "$build/bench/p2p/bw" "${args[@]}" ;;
  ompi2) env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl \
          PMIX_MCA_ptl_tcp_if_include="$bridge" timeout 600 mpirun.openmpi --allow-run-as-root \
          --oversubscribe -n 2 --mca oob_tcp_if_include "$bridge" --mca pml ob1 \
          --mca btl tcp,self --mca btl_tcp_if_include rail0,rail1 -x HWLOC_COMPONENTS \
          "$out/wrap-ompi.sh" "$out/bw.ompi" "${args[@]}" ;;
  esac >"$out/$c.$rep.csv" 2>"$out/$c.$rep.err"
  echo "$c run $rep exit $? rail0 $(( $(rail_bytes 0) - r0 )) rail1 $(( $(rail_bytes 1) - r1 ))" >>"$out/rails.txt"
done
done

python3 - "$out" "$REPS" $CONTENDERS <<'PY'
import csv, sys, os, statistics
out, reps, cs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = {}
for c in cs:
    for r in range(1, reps + 1):
        try:
            for row in csv.DictReader(open(os.path.join(out, f"{c}.{r}.csv"))):
                runs.setdefault((c, int(row["size_bytes"])), []).append(float(row["mb_per_s"]))
        except (OSError, KeyError, ValueError):
            pass
bw = {k: statistics.median(v) for k, v in runs.items()}
print(f"MB/s (10^6 B/s), median of {reps} runs per cell; (x tcp1) = ratio to tcp1's median")
sizes = sorted({s for (_, s) in bw})
print("| size | " + " | ".join(f"{c} MB/s" + ("" if c == "tcp1" else f" (x tcp1)") for c in cs) + " |")
print("|---|" + "---|" * len(cs))
for s in sizes:
    base = bw.get(("tcp1", s))
    cells = []
    for c in cs:
        v = bw.get((c, s))
        if v is None:
            cells.append("failed")
        elif c == "tcp1" or not base:
            cells.append(f"{v:.1f}")
        else:
            cells.append(f"{v:.1f} ({v / base:.2f})")
    print(f"| {s} | " + " | ".join(cells) + " |")
print()
print("all runs, MB/s:", {f"{c}/{s}": v for (c, s), v in sorted(runs.items())})
print("bytes h0 -> h1 per rail (netlab counters), whole run of each contender:")
print(open(os.path.join(out, "rails.txt")).read().strip())
PY
