#!/usr/bin/env bash
# run-multihome.sh [--quick|--full|--tiny] [--build DIR] [--out DIR] [--doc FILE] [--only a,b,c,d]
# The four multihoming experiments on netlab hosts with two rails, end to end, then the generated
# section "Several interfaces per node" of docs/results.md (multihome_report.py):
#   (a) bandwidth by message size, 2 hosts (mh_bw.sh; 004 Fig. 2)
#   (b) Alltoall latency by message size, 4 hosts, one rank each (mh_alltoall.sh; 004 Fig. 3)
#   (c) failover timeline, SCTP wan/lan x CMT off/on (mh_failover.sh; thesis Figs. 6.1-6.3)
#   (d) stencil application with rail 0 failing mid-run (mh_app.sh; thesis Table 6.2)
# Modes: --quick (default; 10-16 min on the shared 2-core VM at load 10-25: few sizes, 1 run for
# a-c, 3 for d), --full (every size, 3 runs for a-c, 5 for d, the 32 s timeline; ~1-2 h), --tiny (the ctest: one contender per
# experiment at the smallest size, 2 hosts; seconds per experiment).  Raw CSVs and logs go to
# OUT (default results/multihome/<UTC time>), the summaries also to docs/results/multihome-*.csv.
# Contender lists per experiment can be overridden: CONTENDERS_A, _B, _D (names in
# mh_contenders.sh); the SCTP backend is SCTPMPI_SCTP_BACKEND's (default native).  Needs root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=quick build=$root/build out="" doc=$root/docs/results.md only=a,b,c,d
while [ $# -gt 0 ]; do
  case $1 in
  --quick | --full | --tiny) mode=${1#--} ;;
  --build) build=$2; shift ;;
  --out) out=$2; shift ;;
  --doc) doc=$2; shift ;;
  --only) only=$2; shift ;;
  *) echo "usage: run-multihome.sh [--quick|--full|--tiny] [--build DIR] [--out DIR] [--doc FILE] [--only a,b,c,d]"; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (netlab)"; exit 77; }
for p in tools/netlab/netlab tools/mpiexec/mpiexec bench/p2p/bw bench/coll/coll_lat \
  bench/multihome/mh_timeline bench/multihome/mh_stencil; do
  [ -x "$build/$p" ] || { echo "run-multihome: $build/$p is missing: build first (ninja -C $build)"; exit 1; }
done
out=${out:-$root/results/multihome/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out" && out=$(cd "$out" && pwd)
ALL="sctp1 sctpmh sctpcmt sctpstripe tcp1 tcpstripe mptcp ompi2 mpich2"
APP="sctpmh sctpcmt sctpstripe tcpstripe mptcp"
# (c): the defaults (auto: no preset) and the presets x CMT, and CMT with the potentially-failed
# state at once (thesis Fig. 6.3, CMT-PF)
FO_CONFIGS="auto-cmtoff auto-cmton wan-cmtoff wan-cmton wan-cmton-pf0 lan-cmtoff lan-cmton lan-cmton-pf0"
case $mode in
tiny)
  A=(SIZES=65536 REPS=1 ITERS=3 WINDOW=16 TMO=60 CONTENDERS="${CONTENDERS_A:-sctpcmt}")
  Bx=(SIZES=4K REPS=1 CREPS=1 NP=2 TMO=60 CONTENDERS="${CONTENDERS_B:-sctpcmt}")
  C=(DUR=5 EVENTS="1.5 3 4" CONFIGS=lan-cmton REPS=1) EV="1.5 3 4"
  FA=1 D=(REPS=1 ITERS=300 FAIL_AT=$FA TMO=60 CONTENDERS="${CONTENDERS_D:-sctpmh}") ;;
quick)
  A=(SIZES=65536,1048576 REPS=1 ITERS=5 TMO=120 CONTENDERS="${CONTENDERS_A:-$ALL}")
  Bx=(SIZES=4K,64K,1M REPS=1 CREPS=3 NP=4 TMO=180 CONTENDERS="${CONTENDERS_B:-$ALL}")
  C=(DUR=13 EVENTS="3 7 10" REPS=1 CONFIGS="$FO_CONFIGS") EV="3 7 10"
  FA=2 D=(REPS=3 ITERS=1500 FAIL_AT=$FA TMO=90 CONTENDERS="${CONTENDERS_D:-$APP}") ;;
full)
  A=(REPS=3 TMO=300 CONTENDERS="${CONTENDERS_A:-$ALL}")
  Bx=(REPS=3 NP=4 TMO=600 CONTENDERS="${CONTENDERS_B:-$ALL}")
  C=(DUR=32 EVENTS="5 15 25" REPS=3 CONFIGS="$FO_CONFIGS") EV="5 15 25"
  FA=2.5 D=(REPS=5 ITERS=2000 FAIL_AT=$FA TMO=120 CONTENDERS="${CONTENDERS_D:-$APP}") ;;
esac
load() { cut -d' ' -f1-3 /proc/loadavg; }
loads="start $(load)"
t0=$(date +%s)
step() { # NAME SCRIPT VARS...
  local name=$1 script=$2
  shift 2
  echo "== run-multihome ($mode): experiment $name, $(date -u +%T) UTC, load $(load)"
  env "$@" bash "$here/$script" "$build" "$out/$name" || echo "run-multihome: $script exited with $?"
  loads="$loads; after ($name) $(load)"
}
[[ ,$only, == *,a,* ]] && step a mh_bw.sh "${A[@]}"
[[ ,$only, == *,b,* ]] && step b mh_alltoall.sh "${Bx[@]}"
[[ ,$only, == *,c,* ]] && step c mh_failover.sh "${C[@]}"
[[ ,$only, == *,d,* ]] && step d mh_app.sh "${D[@]}"
mins=$(echo "($(date +%s) - $t0) / 60" | bc -l)
copy=()
[ "$mode" = tiny ] && copy=(--no-copy)
python3 "$here/multihome_report.py" "$out" --doc "$doc" --mode "$mode" --minutes "$mins" \
  --loads "$loads" --events "$EV" --fail-at "$FA" "${copy[@]}" || exit 1
echo "run-multihome: done in $(printf %.1f "$mins") min; raw data in $out"
