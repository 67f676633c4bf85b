#!/usr/bin/env bash
# Measures event delivery, all on loopback with the load generator in its own process:
#  1. WebSocket fan-out: 1,000 and 10,000 clients on /ws/merchant/events; latency from
#     just before an invoice's POST to each client's invoice.created frame.
#  2. Webhook delivery: a backlog of invoice.created deliveries built with
#     --webhook-workers 0, then drained by a restart with 8 and with 32 workers into a
#     loopback receiver (kassa-load receiver), on SQLite and on PostgreSQL.
# Usage: scripts/bench-events.sh [invoices per webhook backlog]. About 4 minutes.
#        scripts/bench-events.sh --ws-only [rounds]: only the two WebSocket cases at the
#        target rate (1,000 clients at 10 events/s, 10,000 at 1/s), rounds times (default
#        3); about 1.5 minutes a round.
# Figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ws_only=""
if [ "${1:-}" = --ws-only ]; then
  ws_only=${2:-3}
  set --
fi
backlog=${1:-10000}
. scripts/lib-serve.sh
need_files 10200 "10,000 WebSocket clients"
build_tools

# ws_run CLIENTS EVENTS RATE: fan-out on a fresh SQLite data dir.
ws_run() {
  local clients=$1 events=$2 rate=$3
  echo "== WebSocket: $clients clients, $events invoices at $rate/s"
  start_kassa "ws$clients" --webhook-workers 0 --data-dir "$work/ws-$clients-$rate"
  local c0; c0=$(cpu "$pid")
  local TIMEFORMAT="load tool CPU: %U s user + %S s system over %R s"
  time "$work/kassa-load" ws -url "$url" -key "$key" -clients "$clients" -events "$events" -rate "$rate" -d 150s
  echo "server CPU: $(awk -v a="$c0" -v b="$(cpu "$pid")" 'BEGIN {printf "%.1f", b-a}') s (connecting, creating, fanning out)"
  stop_kassa
}

if [ -n "$ws_only" ]; then
  for round in $(seq 1 "$ws_only"); do
    echo "== round $round of $ws_only"
    ws_run 1000 200 10
    ws_run 10000 40 1
  done
  exit 0
fi

ws_run 1000 200 10    # 10,000 frames/s at the target rate
ws_run 10000 40 1     # 10,000 frames/s
ws_run 1000 200 100   # as fast as it goes: what the two cores can fan out
ws_run 10000 60 100

"$work/kassa-load" receiver -addr 127.0.0.1:0 -d 20m >"$work/receiver.out" &
wait_line "$work/receiver.out" "listening on"
recv="http://$(awk '/receiver listening on/ {print $4}' "$work/receiver.out")"

# backlog_then_drain ENGINE WORKERS [serve flags…]: queue $backlog deliveries with
# no worker running, then restart with WORKERS and time the receiver draining them.
backlog_then_drain() {
  local engine=$1 workers=$2; shift 2
  start_kassa "$engine" --webhook-workers 0 "$@"
  if [ "$(curl -s "$url/api/v1/webhook-endpoints" -H "x-api-key: $key" | jq '[.. | objects | select(.object? == "webhook_endpoint")] | length')" = 0 ]; then
    curl -sf "$url/api/v1/webhook-endpoints" -H "x-api-key: $key" -H 'Content-Type: application/json' \
      -d "{\"url\":\"$recv/hook\",\"enabled_events\":[\"invoice.created\"]}" >/dev/null
  fi
  local created
  created=$("$work/kassa-load" run -mode create -url "$url" -key "$key" -c 8 -max "$backlog" -d 120s)
  echo "backlog: $created"
  local failed; failed=$(sed -n 's/.* failed=\([0-9]*\) .*/\1/p' <<<"$created")
  stop_kassa
  curl -sf -X POST "$recv/reset" >/dev/null
  start_kassa "$engine" --webhook-workers "$workers" "$@"
  local c0; c0=$(cpu "$pid")
  "$work/kassa-load" hookwait -url "$recv" -want $((backlog - failed)) -d 150s -label "$engine --webhook-workers $workers" || true
  echo "server CPU while draining: $(awk -v a="$c0" -v b="$(cpu "$pid")" 'BEGIN {printf "%.1f", b-a}') s"
  stop_kassa
}

echo "== Webhooks: SQLite, backlog of $backlog"
backlog_then_drain sqlite 8 --data-dir "$work/hooks-sqlite"
backlog_then_drain sqlite 32 --data-dir "$work/hooks-sqlite"

new_schema bench_events
echo "== Webhooks: PostgreSQL, backlog of $backlog"
backlog_then_drain postgres 8 --data-dir "$work/hooks-pg" --database-url "$pg&search_path=$schema"
backlog_then_drain postgres 32 --data-dir "$work/hooks-pg" --database-url "$pg&search_path=$schema"
