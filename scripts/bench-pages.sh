#!/usr/bin/env bash
# Measures the payment pages at scale (docs/performance.md, "Payment pages"): kassa
# serve --dev (no dev chain) on a fresh SQLite data dir, then on a fresh PostgreSQL
# schema; on each, kassa-load pages creates the invoices, opens one payment page event
# stream per invoice (GET /pay/{id}/events, as pay.js opens it), pays RATE invoices a
# second for SECONDS through the devnet payments route (the store's ingestion: payment,
# status and events in one commit) and measures, per payment, the time from its commit
# (the paid_at stamped in its transaction) to its page receiving the paid view. Also
# prints the server's CPU per payment while paying (utime+stime from /proc, robust to
# the load of other processes, unlike the latencies).
# Usage: scripts/bench-pages.sh [pages, default 10000] [payments a second, 100] [seconds, 30]
#        KASSA_BENCH_PPROF=DIR also writes a 10 s CPU profile of the server while it pays
#        (DIR/pages-ENGINE.pprof).
set -euo pipefail
[ -z "${KASSA_BENCH_PPROF:-}" ] || KASSA_BENCH_PPROF=$(realpath "$KASSA_BENCH_PPROF")
cd "$(dirname "$0")/.."
pages=${1:-10000}
rate=${2:-100}
secs=${3:-30}
. scripts/lib-serve.sh
need_files $((pages + 200)) "$pages page streams"
build_tools

# run ENGINE [serve flags…]: one measurement; its last line is the tool's.
run() {
  local engine=$1; shift
  echo "== $engine: $pages pages, $rate payments/s for $secs s"
  start_kassa "$engine" --devchain=false --webhook-workers 0 --pprof-addr 127.0.0.1:0 "$@"
  local log="$work/$engine.load"
  "$work/kassa-load" pages -url "$url" -key "$key" -pages "$pages" -rate "$rate" -pay "${secs}s" >"$log" 2>&1 &
  local lp=$!
  # The server's CPU over the payments alone: from the tool's "streams open" line to
  # its "payments made" line.
  wait_line "$log" "pages: streams open"
  local c0 t0; c0=$(cpu "$pid"); t0=$(date +%s.%N)
  if [ -n "${KASSA_BENCH_PPROF:-}" ]; then
    local paddr; paddr=$(awk '/pprof listening on/ {print $4}' "$out")
    if [ -n "$paddr" ]; then
      curl -s "http://$paddr/debug/pprof/profile?seconds=10" -o "$KASSA_BENCH_PPROF/pages-$engine.pprof" &
    fi
  fi
  while ! grep -q "pages: payments made" "$log"; do
    kill -0 "$lp" 2>/dev/null || break
    sleep 0.05
  done
  local c1 t1; c1=$(cpu "$pid"); t1=$(date +%s.%N)
  wait "$lp" || true
  cat "$log"
  local made; made=$(sed -n 's/^pages: payments made=\([0-9]*\) .*/\1/p' "$log")
  echo "server CPU while paying: $(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v n="${made:-0}" \
    'BEGIN {printf "%.2f s over %.1f s (%.0f%% of a core), %.2f ms a payment", b-a, e-s, 100*(b-a)/(e-s), n ? 1000*(b-a)/n : 0}')"
  stop_kassa
  summary="$summary${summary:+; }$engine: $(tail -1 "$log" | sed 's/^commit to page event: //'), $(awk -v a="$c0" -v b="$c1" -v n="${made:-0}" 'BEGIN {printf "%.2f ms CPU a payment", n ? 1000*(b-a)/n : 0}')"
}

summary=""
run sqlite --data-dir "$work/sqlite"
new_schema bench_pages
run postgres --data-dir "$work/pg" --database-url "$pg&search_path=$schema"
echo "commit to page event, $pages pages at $rate payments/s: $summary"
