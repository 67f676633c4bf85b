#!/usr/bin/env bash
# Measures the chain watcher at the head (docs/performance.md, "Chain watching at
# size"): with 100, 10,000 and 100,000 open invoices with locked quotes on the dev
# chain's network (one in ten in ETH, so block bodies are read), seeded through the
# store, one more locked before each of 50 new blocks: JSON-RPC calls a block, process
# CPU a block while stepping (after a first step that loads the address set whole,
# whose CPU is reported apart), and the heap the watcher's address set holds. SQLite
# unless KASSA_TEST_POSTGRES_DSN is set (then the database's own CPU is not counted).
# Usage: scripts/bench-watcher.sh [sizes, comma-separated]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-100,10000,100000}
out=$(KASSA_BENCH_OPEN=$sizes go test ./chain -run '^$' -bench '^BenchmarkHeadFollowing$' -benchtime 1x -count 1 -timeout 60m)
echo "$out" | grep -E 'Benchmark|locked in|calls a block'
# The last line: calls a block, CPU a block and set memory at each size.
echo "$out" | awk '/^BenchmarkHeadFollowing/ {
  n = $1; sub(/^BenchmarkHeadFollowing\//, "", n); sub(/-open-invoices.*/, "", n)
  for (i = 3; i < NF; i++) { if ($(i+1) == "rpc-calls/block") c = $i; if ($(i+1) == "cpu-ms/block") u = $i; if ($(i+1) == "set-MiB") m = $i; if ($(i+1) == "load-cpu-ms") l = $i }
  line = line sprintf("%s%s open: %s calls/block, %s ms CPU/block, set %s MiB, first load %s ms CPU", sep, n, c, u, m, l); sep = "; "
} END { print line }'
