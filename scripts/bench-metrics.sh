#!/usr/bin/env bash
# What metrics cost: invoice list or create on SQLite with metrics on and off,
# alternating (on, off, on, off...) so drifts of a shared machine hit both alike;
# a fresh data dir and serve process per run, 8 s of creates first as rows to list.
# Usage: scripts/bench-metrics.sh list|create [rounds]. Figures: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-list}; rounds=${2:-4}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/kb"
go build -o "$work/kb/kassa" ./cmd/kassa
go build -o "$work/kb/kassa-load" ./cmd/kassa-load
for r in $(seq 1 $rounds); do
  for m in true false; do
    d=$(mktemp -d -p "$work")
    KASSA_METRICS=$m "$work"/kb/kassa serve --dev --devchain=false --addr 127.0.0.1:0 --data-dir $d --access-log off \
      --rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000 >$d/out 2>$d/err &
    pid=$!
    for i in $(seq 1 100); do grep -q "kassa listening on" $d/out && break; sleep 0.1; done
    url="http://$(awk '/kassa listening on/ {print $4}' $d/out)"; key=$(awk '/merchant key:/ {print $3}' $d/out)
    "$work"/kb/kassa-load run -d 8s -c 16 -mode create -url $url -key $key >/dev/null  # seed rows for list
    res=$("$work"/kb/kassa-load run -d 10s -c 16 -mode $mode -url $url -key $key | grep -o 'req/s=[0-9]*')
    echo "round $r metrics=$m $mode $res"
    kill $pid; wait $pid 2>/dev/null || true; rm -rf $d
  done
done
