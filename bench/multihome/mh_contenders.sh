# mh_contenders.sh — the contenders of the multihoming experiments (sourced by mh_bw.sh,
# mh_alltoall.sh, mh_app.sh): one netlab network of H hosts x 2 rails for a whole experiment,
# and one function that runs a job of a named contender on it.  Owns nothing else.
#
#   sctp1       ours, SCTP (native backend unless SCTPMPI_SCTP_BACKEND says otherwise), bound to
#               rail 0 only (SCTPMPI_SCTP_ADDRS = a file with each host's rail-0 address)
#   sctpmh      ours, SCTP multihomed over both rails (the job's SCTPMPI_ADDRS), CMT off
#   sctpcmt     the same with SCTPMPI_SCTP_CMT=on
#   sctpstripe  ours, SCTP middleware striping (SCTPMPI_SCTP_STRIPE=1); only when the library
#               reads that variable (mh_supported says why not otherwise)
#   tcp1        ours, TCP, one connection per peer on rail 0
#   tcpstripe   ours, TCP striped over both rails (SCTPMPI_TCP_STRIPE=1)
#   mptcp       ours, TCP on MPTCP sockets (SCTPMPI_TCP_MPTCP=1), each host announcing its rail-1
#               address as an MPTCP endpoint: one extra subflow on rail 1
#   ompi2       Open MPI, ob1 + TCP BTL on rail0 and rail1 (two BTL modules, as in 004)
#   mpich2      MPICH ch4:ucx, UCX_NET_DEVICES=rail0,rail1 (UCX's own multi-rail)
#
# Needs: B (build directory), OUT (output directory), set before sourcing.  Functions:
#   mh_start TOPO          start the network (stopped on exit), MPTCP endpoints, rank wrappers
#   mh_supported NAME      0 if NAME can run here; else prints the reason on stdout
#   mh_run NAME NP TMO PROG ARGS...   one job; PROG is bw, coll_lat, mh_stencil or mh_timeline
#   mh_rail_bytes R        bytes the emulated links of rail R forwarded so far (all hosts)
#   mh_load                1-minute load average
MH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MH_NETLAB=$B/tools/netlab/netlab
MH_MPIEXEC=$B/tools/mpiexec/mpiexec
MH_ALL="sctp1 sctpmh sctpcmt sctpstripe tcp1 tcpstripe mptcp ompi2 mpich2"
MH_SOCKBUF=${MH_SOCKBUF:-225280} # 220 KB, the papers' socket buffers (004: 233 KB)

mh_load() { cut -d' ' -f1 /proc/loadavg; }

# source file and build directory of each program
mh_prog_src() {
  case $1 in
  bw) echo "$MH_SRC/bench/p2p/bw.c bench/p2p" ;;
  coll_lat) echo "$MH_SRC/bench/coll/coll_lat.c bench/coll" ;;
  mh_stencil | mh_timeline) echo "$MH_SRC/bench/multihome/$1.c bench/multihome" ;;
  *) echo "mh_contenders: unknown program $1" >&2; return 1 ;;
  esac
}

mh_start() {
  local topo=$1
  MH_RUN=$("$MH_NETLAB" start "$topo" | tail -1) || { echo "netlab start failed" >&2; return 1; }
  trap '"$MH_NETLAB" stop --run "$MH_RUN" >/dev/null 2>&1' EXIT
  export NETLAB_RUN=$MH_RUN
  MH_BRIDGE=$("$MH_NETLAB" info --run "$MH_RUN" | sed -n 's/^mgmt_bridge=//p')
  mapfile -t MH_HOSTS < <("$MH_NETLAB" hosts --run "$MH_RUN")
  local i n=${#MH_HOSTS[@]}
  : >"$OUT/rail0-addrs"
  for ((i = 0; i < n; i++)); do
    echo "${MH_HOSTS[i]} 198.18.0.$((i + 1))" >>"$OUT/rail0-addrs"
    # MPTCP: every host announces its rail-1 address; plain TCP and SCTP ignore this
    "$MH_NETLAB" exec "${MH_HOSTS[i]}" -- ip mptcp limits set subflow 2 add_addr_accepted 2
    "$MH_NETLAB" exec "${MH_HOSTS[i]}" -- ip mptcp endpoint add "198.18.1.$((i + 1))" dev rail1 signal
  done
  local key var
  for key in ompi mpich; do
    var=OMPI_COMM_WORLD_RANK
    [ $key = mpich ] && var=PMI_RANK
    printf '#!/bin/sh\n# rank -> emulated host h(rank mod %d), then exec the program there\nr=${%s:?}\nexec "%s" exec --run "%s" h$((r %% %d)) -- "$@"\n' \
      "$n" "$var" "$MH_NETLAB" "$MH_RUN" "$n" >"$OUT/wrap-$key.sh"
    chmod +x "$OUT/wrap-$key.sh"
  done
}

# program PROG built with the peer's mpicc into $OUT/peer-KEY/PROG (once)
mh_peer_prog() {
  local key=$1 prog=$2 cc src dir
  cc=mpicc.openmpi
  [ "$key" = mpich ] && cc=mpicc.mpich
  read -r src dir < <(mh_prog_src "$prog") || return 1
  mkdir -p "$OUT/peer-$key"
  if [ ! -x "$OUT/peer-$key/$prog" ]; then
    "$cc" -std=c11 -O2 -D_GNU_SOURCE -I"$(dirname "$src")" "$src" -o "$OUT/peer-$key/$prog" -lm \
      >"$OUT/peer-$key/$prog.cc.log" 2>&1 || return 1
  fi
  echo "$OUT/peer-$key/$prog"
}

mh_supported() {
  case $1 in
  sctpstripe)
    # the library reads every SCTPMPI_* variable by name: a build that never names this one
    # would silently run sctpmh under another label
    grep -aqs SCTPMPI_SCTP_STRIPE "$B/bench/p2p/bw" "$B"/src/libsctpmpi.so* ||
      { echo "not supported by this build (the library does not read SCTPMPI_SCTP_STRIPE)"; return 1; } ;;
  ompi2) command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi >/dev/null ||
      { echo "Open MPI (mpirun.openmpi, mpicc.openmpi) not installed"; return 1; } ;;
  mpich2) command -v mpiexec.hydra >/dev/null && command -v mpicc.mpich >/dev/null ||
      { echo "MPICH (mpiexec.hydra, mpicc.mpich) not installed"; return 1; } ;;
  sctp1 | sctpmh | sctpcmt | tcp1 | tcpstripe | mptcp) ;;
  *) echo "unknown contender $1 (known: $MH_ALL)"; return 1 ;;
  esac
  return 0
}

# mh_run NAME NP TIMEOUT PROG ARGS... — stdout and stderr of the job go to the caller's
mh_run() {
  local name=$1 np=$2 tmo=$3 prog=$4
  shift 4
  local ours=() tp=sctp exe src dir
  case $name in
  sctp1) ours=(SCTPMPI_SCTP_ADDRS="$OUT/rail0-addrs") ;;
  sctpmh) ours=(SCTPMPI_SCTP_CMT=off) ;;
  sctpcmt) ours=(SCTPMPI_SCTP_CMT=on) ;;
  sctpstripe) ours=(SCTPMPI_SCTP_STRIPE=1) ;;
  tcp1) ours=(SCTPMPI_TCP_STRIPE=0) tp=tcp ;;
  tcpstripe) ours=(SCTPMPI_TCP_STRIPE=1) tp=tcp ;;
  mptcp) ours=(SCTPMPI_TCP_MPTCP=1) tp=tcp ;;
  ompi2)
    exe=$(mh_peer_prog ompi "$prog") || { echo "mpicc.openmpi failed for $prog" >&2; return 1; }
    env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl \
      PMIX_MCA_ptl_tcp_if_include="$MH_BRIDGE" timeout "$tmo" mpirun.openmpi --allow-run-as-root \
      --oversubscribe -n "$np" --mca oob_tcp_if_include "$MH_BRIDGE" --mca pml ob1 \
      --mca btl tcp,self --mca btl_tcp_if_include rail0,rail1 \
      --mca btl_tcp_sndbuf "$MH_SOCKBUF" --mca btl_tcp_rcvbuf "$MH_SOCKBUF" -x HWLOC_COMPONENTS \
      "$OUT/wrap-ompi.sh" "$exe" "$@"
    return ;;
  mpich2)
    exe=$(mh_peer_prog mpich "$prog") || { echo "mpicc.mpich failed for $prog" >&2; return 1; }
    env UCX_TLS=tcp,self UCX_NET_DEVICES=rail0,rail1 UCX_TCP_SNDBUF="$MH_SOCKBUF" \
      UCX_TCP_RCVBUF="$MH_SOCKBUF" HWLOC_COMPONENTS=-gl timeout "$tmo" \
      mpiexec.hydra -launcher fork -n "$np" "$OUT/wrap-mpich.sh" "$exe" "$@"
    return ;;
  *) echo "unknown contender $name" >&2; return 1 ;;
  esac
  read -r src dir < <(mh_prog_src "$prog") || return 1
  env SCTPMPI_SOCKBUF="$MH_SOCKBUF" SCTPMPI_STATS=1 "${ours[@]}" timeout $((tmo + 10)) \
    "$MH_MPIEXEC" --netlab "$OUT/topo.json" -n "$np" --transport $tp --timeout "$tmo" \
    "$B/$dir/$prog" "$@"
}

mh_rail_bytes() {
  "$MH_NETLAB" stats --run "$MH_RUN" | awk -v r="rail=$1" '$1 == "link" && $2 == r {
    for (i = 3; i <= NF; i++) if ($i ~ /^fwd_bytes=/) { sub("fwd_bytes=", "", $i); s += $i } }
    END { printf "%.0f\n", s }'
}

# packets the emulated links dropped so far, all rails: "drop_queue N drop_down M" (queue = a
# NIC or link queue overflowed; down = the link was down)
mh_net_drops() {
  "$MH_NETLAB" stats --run "$MH_RUN" | awk '$1 == "link" { for (i = 3; i <= NF; i++) {
    if ($i ~ /^drop_queue=/) { sub("drop_queue=", "", $i); q += $i }
    if ($i ~ /^drop_down=/) { sub("drop_down=", "", $i); d += $i } } }
    END { printf "drop_queue %.0f drop_down %.0f\n", q, d }'
}

# mh_measure LOG NAME NP TMO PROG ARGS... — mh_run with stdout to LOG.out and stderr to LOG.err;
# sets MH_STATUS (ok, timeout, fail(rc=N)), MH_R0 / MH_R1 (bytes rail 0 / 1 carried during the
# job), MH_LOAD (load average after it) and MH_WALL (seconds); LOG.net gets the packets the
# emulated links dropped during the job (mh_net_drops' format).
# With MH_DONE_RE and MH_DONE_N set (the caller's result lines: an extended regex and how many
# the job prints), a job still running MH_GRACE (10) s after its last result line is ended and
# recorded as "timeout" with its results (MPICH 4.0.2 + UCX 1.13.1 hangs in MPI_Finalize in about
# 1 run in 3: UCX closing its TCP endpoints waits for peers already in the PMI barrier)
mh_measure() {
  local log=$1 r0 r1 t0 rc q0 d0 q1 d1 job done_at=""
  shift
  mkdir -p "$(dirname "$log")"
  read -r _ q0 _ d0 < <(mh_net_drops)
  r0=$(mh_rail_bytes 0) r1=$(mh_rail_bytes 1) t0=$(date +%s.%N)
  setsid bash -c "$(declare -f mh_run mh_prog_src mh_peer_prog); $(declare -p MH_SRC MH_MPIEXEC \
    MH_SOCKBUF MH_BRIDGE B OUT); mh_run \"\$@\"" mh_run "$@" >"$log.out" 2>"$log.err" &
  job=$!
  while kill -0 "$job" 2>/dev/null; do
    sleep 0.5
    if [ -n "${MH_DONE_RE:-}" ] && [ -z "$done_at" ] &&
      [ "$(grep -cE "$MH_DONE_RE" "$log.out")" -ge "${MH_DONE_N:-1}" ]; then
      done_at=$SECONDS
    fi
    if [ -n "$done_at" ] && [ $((SECONDS - done_at)) -ge "${MH_GRACE:-10}" ]; then
      echo "mh_measure: job still running ${MH_GRACE:-10} s after its last result: ended" >>"$log.err"
      kill -TERM -- "-$job" 2>/dev/null
      sleep 2
      kill -KILL -- "-$job" 2>/dev/null
      break
    fi
  done
  wait "$job"
  rc=$?
  [ -n "$done_at" ] && [ $rc -ne 0 ] && rc=124
  MH_WALL=$(echo "$(date +%s.%N) - $t0" | bc)
  case $rc in
  0) MH_STATUS=ok ;;
  124 | 137) MH_STATUS=timeout ;;
  *) MH_STATUS="fail(rc=$rc)" ;;
  esac
  MH_R0=$(($(mh_rail_bytes 0) - r0)) MH_R1=$(($(mh_rail_bytes 1) - r1)) MH_LOAD=$(mh_load)
  read -r _ q1 _ d1 < <(mh_net_drops)
  echo "drop_queue $((q1 - q0)) drop_down $((d1 - d0))" >"$log.net"
}
