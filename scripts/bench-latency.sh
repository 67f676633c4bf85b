#!/usr/bin/env bash
# Measures how soon a payment is paid after its block (docs/performance.md, "Payment
# latency"): the embedded dev chain (go-ethereum's node, as serve --dev runs it) makes a
# block a second; the watchers run as serve runs them, polling the head every second,
# once alone ("polling") and once stepped as well by the node's newHeads over its
# WebSocket endpoint ("newHeads"). Per payment: from the moment the block that gives it
# its last confirmation appears on the node (its head polled every 2 ms) to the invoice's
# paid_at (committed with invoice.paid). SQLite unless KASSA_TEST_POSTGRES_DSN is set.
# With KASSA_BENCH_RPC_URL, KASSA_BENCH_WS_URL and KASSA_BENCH_KEY (a funded account's
# key) it measures an external node with chain id 1337 instead (scripts/bench-latency-ganache.sh).
# Usage: scripts/bench-latency.sh [payments per mode, default 40]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-40}
# A failed run prints what go test said (set -e would end the script silently).
out=$(KASSA_BENCH_PAYMENTS=$n go test ./chain -run '^$' -bench '^BenchmarkDetectionLatency$' -benchtime 1x -count 1 -v -timeout 30m) || { echo "$out"; exit 1; }
echo "$out" | grep -E 'payments: min|calls a block by method'
# The last line: p50 and p99 in ms of each mode, and the watcher's JSON-RPC calls over
# HTTP per block.
echo "$out" | awk '/^BenchmarkDetectionLatency\/.*p50-ms/ {
  m = $1; sub(/^BenchmarkDetectionLatency\//, "", m); sub(/-[0-9]+$/, "", m)
  for (i = 3; i < NF; i++) { if ($(i+1) == "p50-ms") p = $i; if ($(i+1) == "p99-ms") q = $i; if ($(i+1) == "rpc-calls/block") c = $i }
  line = line sprintf("%s%s: p50 %s ms, p99 %s ms, %s HTTP calls/block", sep, m, p, q, c); sep = "; "
} END { print line }'
