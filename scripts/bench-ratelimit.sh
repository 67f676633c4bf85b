#!/usr/bin/env bash
# Measures what sharing the rate budgets in PostgreSQL costs: invoice list req/s on
# one PostgreSQL instance with --rate-limit-store memory, then database (limits high
# enough that nothing is refused: every request still takes from its budget).
# Usage: scripts/bench-ratelimit.sh [seconds] [connections]. Figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conc=${2:-16}
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/kassa" ./cmd/kassa
go build -o "$work/kassa-load" ./cmd/kassa-load
high=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)

# wait_line FILE PATTERN: wait until a started process prints PATTERN.
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

schema="bench_rl_$$"
psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
for where in memory database; do
  out="$work/$where.out"
  "$work/kassa" serve --dev --addr 127.0.0.1:0 --data-dir "$work/$where" --access-log off "${high[@]}" \
    --database-url "$pg&search_path=$schema" --rate-limit-store "$where" >"$out" 2>"$work/$where.err" &
  pid=$!
  wait_line "$out" "kassa listening on"
  url="http://$(awk '/kassa listening on/ {print $4}' "$out")"
  key=$(awk '/merchant key:/ {print $3}' "$out")
  echo "== postgres, rate budgets in $where: list (GET /api/v1/invoices?limit=10)"
  "$work/kassa-load" run -d "${secs}s" -c "$conc" -mode list -url "$url" -key "$key"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null
