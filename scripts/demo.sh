#!/usr/bin/env bash
# demo.sh BUILD_DIR — the flagship demonstration: ping-pong, bandwidth and a small task farm
# over each transport sctpmpi has (tcp always; sctp over usrsctp if the build has it; sctp over
# our own SCTP engine), on this machine.
# Builds nothing: run after scripts/setup.sh, cmake and ninja (see the README).
#
#   scripts/demo.sh build
#
# Environment knobs: DEMO_TASKS (farm tasks, default 2000), DEMO_TASK_BYTES (default 4096),
# DEMO_RANKS_FARM (default 3: a manager and 2 workers), DEMO_TIMEOUT (seconds per step, default 120).
# Exit status: 0 if the tcp row is all OK (sctp is optional), 1 otherwise, 2 on usage errors.
set -u

BUILD=${1:-}
if [[ -z "$BUILD" || "$BUILD" == -h || "$BUILD" == --help ]]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "demo: no such directory: $1" >&2; exit 2; }
MPIEXEC="$BUILD/tools/mpiexec/mpiexec"
BIN="$BUILD/bench/p2p"
TASKS=${DEMO_TASKS:-2000}
TASK_BYTES=${DEMO_TASK_BYTES:-4096}
FARM_RANKS=${DEMO_RANKS_FARM:-3}
TMO=${DEMO_TIMEOUT:-120}

for f in "$MPIEXEC" "$BIN/pingpong" "$BIN/bw" "$BIN/farm_demo"; do
    if [[ ! -x "$f" ]]; then
        echo "demo: missing $f (build first: cmake -S . -B $BUILD -G Ninja && ninja -C $BUILD)" >&2
        exit 2
    fi
done

LOG=$(mktemp -d "${TMPDIR:-/tmp}/sctpmpi-demo.XXXXXX")

# run NAME CMD... : run under a timeout, stdout to $LOG/NAME.out, stderr to $LOG/NAME.err.
run() {
    local name=$1
    shift
    timeout -k 5 "$TMO" "$@" >"$LOG/$name.out" 2>"$LOG/$name.err"
    local rc=$?
    [[ $rc -eq 124 || $rc -eq 137 ]] && echo "timed out after ${TMO}s" >>"$LOG/$name.err"
    return $rc
}

# csv_field FILE BENCH COLUMN : the value in COLUMN (1-based) of the first row whose first field is BENCH.
csv_field() {
    awk -F, -v b="$2" -v c="$3" '$1 == b { print $c; exit }' "$1"
}

last_err() {
    tail -n 2 "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-120
}

printf 'sctpmpi demo: %s, %s CPUs, build %s\n' "$(uname -sr)" "$(nproc)" "$BUILD"
printf 'ping-pong: 2 ranks, 0 B; bandwidth: 2 ranks, 1 MiB, window 64; farm: %s ranks, %s tasks x %s B, 10 outstanding per worker\n\n' \
    "$FARM_RANKS" "$TASKS" "$TASK_BYTES"

rows=()
notes=()
tcp_ok=0
# rows: tcp; sctp over usrsctp; sctp over our own SCTP engine (SCTPMPI_SCTP_BACKEND=native)
for tr in tcp sctp-usrsctp sctp-native; do
    case $tr in
        tcp) MPIRUN=("$MPIEXEC") ;;
        sctp-*) MPIRUN=(env "SCTPMPI_SCTP_BACKEND=${tr#sctp-}" "$MPIEXEC") ;;
    esac
    # Availability probe: a short ping-pong. A build without the transport fails fast.
    if ! run "$tr-probe" "${MPIRUN[@]}" -n 2 --transport "${tr%%-*}" "$BIN/pingpong" --sizes 0 --iters 10 --skip 1 --csv; then
        rows+=("$(printf '| %-12s | %-13s | %-16s | %-13s | %-15s |' "$tr" "-" "-" "-" "not available")")
        notes+=("$tr: $(last_err "$LOG/$tr-probe.err")")
        continue
    fi
    ok=1
    lat="-" bw="-" tps="-"
    if run "$tr-pingpong" "${MPIRUN[@]}" -n 2 --transport "${tr%%-*}" "$BIN/pingpong" --sizes 0 --csv; then
        lat=$(csv_field "$LOG/$tr-pingpong.out" pingpong 4)
    else
        ok=0
        notes+=("$tr pingpong: $(last_err "$LOG/$tr-pingpong.err")")
    fi
    if run "$tr-bw" "${MPIRUN[@]}" -n 2 --transport "${tr%%-*}" "$BIN/bw" --sizes 1M --csv; then
        bw=$(csv_field "$LOG/$tr-bw.out" bw 5)
    else
        ok=0
        notes+=("$tr bw: $(last_err "$LOG/$tr-bw.err")")
    fi
    if run "$tr-farm" "${MPIRUN[@]}" -n "$FARM_RANKS" --transport "${tr%%-*}" "$BIN/farm_demo" \
        --tasks "$TASKS" --task-bytes "$TASK_BYTES" --csv; then
        tps=$(csv_field "$LOG/$tr-farm.out" farm 7)
        [[ "$(csv_field "$LOG/$tr-farm.out" farm 9)" == OK ]] || ok=0
    else
        ok=0
        notes+=("$tr farm: $(last_err "$LOG/$tr-farm.err")")
    fi
    [[ -n "$lat" && -n "$bw" && -n "$tps" ]] || ok=0
    check=$([[ $ok -eq 1 ]] && echo OK || echo FAIL)
    [[ $tr == tcp && $ok -eq 1 ]] && tcp_ok=1
    rows+=("$(printf '| %-12s | %13s | %16s | %13s | %-15s |' "$tr" "$lat" "$bw" "$tps" "$check")")
done

printf '| transport    | 0 B lat (µs)  | 1 MiB bw (MB/s)  | farm tasks/s  | result check    |\n'
printf '|--------------|---------------|------------------|---------------|-----------------|\n'
printf '%s\n' "${rows[@]}"
if [[ ${#notes[@]} -gt 0 ]]; then
    echo
    printf 'note: %s\n' "${notes[@]}"
fi
echo
echo "logs: $LOG  (every program checks its data and exits non-zero on a mismatch)"
echo "full comparison with Open MPI and MPICH: python3 bench/compare.py --build $BUILD"
[[ $tcp_ok -eq 1 ]]
