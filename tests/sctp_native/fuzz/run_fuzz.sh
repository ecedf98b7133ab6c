#!/usr/bin/env bash
# run_fuzz.sh — runs the libFuzzer target of the native SCTP engine for a bounded time, starting
# from the kept corpus (read only: new inputs go to a scratch directory), and passes only if
# libFuzzer ends without a crash, leak, timeout or sanitizer report.
#
#   run_fuzz.sh FUZZ_BINARY CORPUS_DIR SECONDS
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 FUZZ_BINARY CORPUS_DIR SECONDS" >&2
  exit 2
fi
bin=$1 corpus=$2 secs=$3
work=$(mktemp -d /tmp/sctpn_fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new" "$work/crash"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$work/crash/" "$work/new" "$corpus" >"$work/log" 2>&1
rc=$?
tail -n 25 "$work/log"
if [ "$rc" -ne 0 ] || ls "$work/crash"/* >/dev/null 2>&1; then
  echo "fuzz FAILED (libFuzzer exit $rc)"
  for f in "$work/crash"/*; do
    [ -f "$f" ] || continue
    hex=$(od -An -tx1 -v "$f" | tr -d ' \n' | head -c 8192)
    echo "failing input $(basename "$f"), in hex: $hex"
  done
  grep -m 20 -E "ERROR|runtime error|SUMMARY|#[0-9]+ 0x" "$work/log"
  exit 1
fi
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$')
new=$(ls "$work/new" | wc -l)
echo "fuzz PASSED: ${runs:-?} inputs in ${secs} s, $new new corpus entries (not kept)"
exit 0
