#!/usr/bin/env bash
# Measures invoice create and list over HTTP on SQLite and PostgreSQL, beside a bare
# net/http JSON echo, all on loopback with the load generator in its own process.
# Usage: scripts/bench.sh [seconds] [connections]. Figures go to docs/performance.md.
# Metrics are on, as serve's default; KASSA_METRICS=false scripts/bench.sh measures
# without them (serve reads the variable), for the cost of counting requests.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conc=${2:-16}
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/kassa" ./cmd/kassa
go build -o "$work/kassa-load" ./cmd/kassa-load
load() { "$work/kassa-load" run -d "${secs}s" -c "$conc" "$@"; }
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)

# wait_line FILE PATTERN: wait until a started process prints PATTERN.
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

"$work/kassa-load" echo -addr 127.0.0.1:0 >"$work/echo.out" &
wait_line "$work/echo.out" "listening on"
echo_url="http://$(awk '/listening on/ {print $4}' "$work/echo.out")"
metrics=${KASSA_METRICS:-true}
echo "== metrics: $metrics"
echo "== bare net/http JSON echo"
load -mode echo -url "$echo_url"

run_engine() { # name, then extra serve flags
  local name=$1; shift
  local out="$work/$name.out"
  "$work/kassa" serve --dev --addr 127.0.0.1:0 --data-dir "$work/$name" "${unlimited[@]}" "$@" >"$out" 2>"$work/$name.err" &
  local pid=$!
  wait_line "$out" "kassa listening on"
  local url="http://$(awk '/kassa listening on/ {print $4}' "$out")"
  local key=$(awk '/merchant key:/ {print $3}' "$out")
  echo "== $name: create (POST /api/v1/invoices with Idempotency-Key)"
  load -mode create -url "$url" -key "$key"
  echo "== $name: list (GET /api/v1/invoices?limit=10)"
  load -mode list -url "$url" -key "$key"
  if [ "$metrics" != false ]; then # what the metrics counted meanwhile
    curl -s "$url/metrics" | grep -E '^kassa_http_requests_total\{route="(POST|GET) /api/v1/invoices"' || true
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

run_engine sqlite
schema="bench_$$"
psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
run_engine postgres --database-url "$pg&search_path=$schema"
psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null
