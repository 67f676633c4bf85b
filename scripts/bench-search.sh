#!/usr/bin/env bash
# Measures product search over HTTP on the built-in devnet catalog: cached (one query
# answered from the cache) and cold (every query distinct, so each runs the full
# search), with the load generator in its own process on loopback.
# Usage: scripts/bench-search.sh [seconds] [connections]. Figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conc=${2:-16}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/kassa" ./cmd/kassa
go build -o "$work/kassa-load" ./cmd/kassa-load
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

"$work/kassa" serve --dev --addr 127.0.0.1:0 --data-dir "$work/data" --rate-limit 1e9 --rate-burst 1000000000 \
  >"$work/out" 2>"$work/err" &
wait_line "$work/out" "kassa listening on"
url="http://$(awk '/kassa listening on/ {print $4}' "$work/out")"
key=$(awk '/commerce key:/ {print $3}' "$work/out")
for mode in search-cached search-cold; do
  echo "== $mode (GET /api/commerce/search, limit 20)"
  "$work/kassa-load" run -d "${secs}s" -c "$conc" -mode "$mode" -url "$url" -key "$key"
done
