#!/usr/bin/env bash
# build_fuzz.sh — builds the libFuzzer binary of the native SCTP engine with clang.  If clang
# rejects the code, the build of the project goes on: OUTPUT becomes a script that prints clang's
# errors and exits 1, so sctp_native.fuzz.libfuzzer fails loudly instead of every target failing.
#
#   build_fuzz.sh OUTPUT CLANG ARG...
set -u
out=$1 clang=$2
shift 2
log="$out.log"
if "$clang" "$@" -o "$out.tmp" >"$log" 2>&1; then
  mv -f "$out.tmp" "$out"
  exit 0
fi
cat "$log" >&2
echo "build_fuzz.sh: clang could not build the fuzz target; its test will fail" >&2
{
  echo '#!/bin/sh'
  echo 'echo "the libFuzzer target did not compile with clang:"'
  printf "cat '%s'\n" "$log"
  echo 'exit 1'
} >"$out"
chmod +x "$out"
exit 0
