#!/usr/bin/env bash
# build.sh [DIR [extra cmake args]] — configure and build sctpmpi with CMake + Ninja.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja "$@" >/dev/null
ninja -C "$dir"
