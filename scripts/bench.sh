#!/usr/bin/env bash
# Measures invoice create and list over HTTP on SQLite and PostgreSQL, beside a bare
# net/http JSON echo, all on loopback with the load generator in its own process.
# Usage: scripts/bench.sh [seconds] [connections] [rounds]. Each round runs the echo,
# then create and list on each engine, then the echo again; the end prints each
# figure's median over the rounds and its share of the echo (issue 17's goals are
# such shares): the median of the rounds' shares, each against the mean of its own
# round's two echoes, so a machine whose speed drifts between rounds (this one's
# echo moved by a third within minutes) compares each figure with the echo measured
# beside it; the share of the medians is printed too.
# Figures go to docs/performance.md.
# Metrics are on, as serve's default; KASSA_METRICS=false scripts/bench.sh measures
# without them (serve reads the variable), for the cost of counting requests.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conc=${2:-16}
rounds=${3:-3}
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/kassa" ./cmd/kassa
go build -o "$work/kassa-load" ./cmd/kassa-load
# load KEY ARGS...: one load run, printed, its req/s kept under KEY and the round
# ($round) for the summary.
load() {
  local key=$1; shift
  local line
  line=$("$work/kassa-load" run -d "${secs}s" -c "$conc" "$@")
  echo "$line"
  echo "$key $round $(grep -o 'req/s=[0-9]*' <<<"$line" | cut -d= -f2)" >>"$work/figures"
}
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)

# wait_line FILE PATTERN: wait until a started process prints PATTERN.
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

"$work/kassa-load" echo -addr 127.0.0.1:0 >"$work/echo.out" &
wait_line "$work/echo.out" "listening on"
echo_url="http://$(awk '/listening on/ {print $4}' "$work/echo.out")"
metrics=${KASSA_METRICS:-true}
echo "== metrics: $metrics"

run_engine() { # name, then extra serve flags
  local name=$1; shift
  local out="$work/$name.out"
  rm -rf "$work/$name"
  # No dev chain: its blocks would take CPU from the measurement.
  "$work/kassa" serve --dev --devchain=false --addr 127.0.0.1:0 --data-dir "$work/$name" "${unlimited[@]}" "$@" >"$out" 2>"$work/$name.err" &
  local pid=$!
  wait_line "$out" "kassa listening on"
  local url="http://$(awk '/kassa listening on/ {print $4}' "$out")"
  local key=$(awk '/merchant key:/ {print $3}' "$out")
  echo "== $name: create (POST /api/v1/invoices with Idempotency-Key)"
  load "$name-create" -mode create -url "$url" -key "$key"
  # The list measures the steady state, in which autovacuum has analyzed the new rows:
  # on a fresh schema its first analyze comes up to a minute (autovacuum_naptime) after
  # the creates, and until then PostgreSQL plans the page as a read and sort of every
  # row of the merchant (a few hundred lists/s instead of thousands, at random).
  if [ "$name" = postgres ]; then psql "$pg" -qc "ANALYZE $schema.invoices"; fi
  echo "== $name: list (GET /api/v1/invoices?limit=10)"
  load "$name-list" -mode list -url "$url" -key "$key"
  if [ "$metrics" != false ]; then # what the metrics counted meanwhile
    curl -s "$url/metrics" | grep -E '^kassa_http_requests_total\{route="(POST|GET) /api/v1/invoices"' || true
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

schema="bench_$$"
for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds: bare net/http JSON echo"
  load echo -mode echo -url "$echo_url"
  run_engine sqlite
  psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
  run_engine postgres --database-url "$pg&search_path=$schema"
  psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null
  echo "== round $round of $rounds: the echo again"
  load echo -mode echo -url "$echo_url"
done

# median KEY: the median req/s of KEY's runs.
median() { awk -v k="$1" '$1 == k {print $3}' "$work/figures" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2))}'; }
# share KEY: the median over the rounds of KEY's req/s against the mean of its
# round's echoes, in per cent.
share() {
  awk -v k="$1" '$1 == "echo" {e[$2] += $3; n[$2]++} $1 == k {r[$2] = $3}
    END {for (i in r) printf "%.1f\n", 100 * r[i] / (e[i] / n[i])}' "$work/figures" |
    sort -n | awk '{v[NR]=$1} END {printf "%.1f", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}
echo_med=$(median echo)
echo
echo "== medians over $rounds rounds (${secs} s, $conc connections); share: the median of the rounds' shares"
echo "== of their own echo (two runs a round), and the share of the echo's median, $echo_med req/s"
printf '| %-16s | %8s | %6s | %16s |\n' load "req/s" share "of echo's median"
for k in sqlite-create sqlite-list postgres-create postgres-list; do
  m=$(median "$k")
  printf '| %-16s | %8s | %5s%% | %15.1f%% |\n' "$k" "$m" "$(share "$k")" "$(awk -v a="$m" -v b="$echo_med" 'BEGIN {print 100*a/b}')"
done
