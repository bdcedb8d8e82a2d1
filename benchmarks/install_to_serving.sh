#!/usr/bin/env bash
# The README's first command on a fresh copy: seconds from nothing (no venv, no pip cache) to
# the server answering. Runs in a clean clone of this repository in a temporary folder.
#   benchmarks/install_to_serving.sh [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-2}
port=8765
for r in $(seq "$rounds"); do
  dir=$(mktemp -d)
  git clone -q "$root" "$dir/civlite"
  cd "$dir/civlite"
  start=$(date +%s.%N)
  python3 -m venv .venv
  PIP_NO_CACHE_DIR=1 .venv/bin/pip install -q -e '.[play]' 2>&1 | grep -v "is ignored" || true
  installed=$(date +%s.%N)
  .venv/bin/civlite serve --port "$port" >/dev/null 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/" >/dev/null; do sleep 0.1; done
  serving=$(date +%s.%N)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  compiled=$(ls src/civlite/engine/*.so 2>/dev/null | wc -l)
  printf 'round %d: installed in %.1f s, serving in %.1f s (%d compiled engine modules; load %s)\n' \
    "$r" "$(echo "$installed - $start" | bc)" "$(echo "$serving - $start" | bc)" "$compiled" \
    "$(cut -d' ' -f1 /proc/loadavg)"
  cd "$root"; rm -rf "$dir"
done
