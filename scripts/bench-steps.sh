#!/usr/bin/env bash
# Create and list on SQLite and PostgreSQL for several kassa builds, one row per build
# (docs/performance.md, "Machine and method": comparing two builds). Each round runs every
# build in turn (fresh data dir and schema each), so drifts of a shared machine hit
# them alike; each run prints req/s and the server's CPU per request (utime+stime of
# /proc/PID/stat), which contention from other processes disturbs far less, and on
# PostgreSQL also the CPU of the PostgreSQL server's processes per request (pg_us). A
# bare net/http echo runs once per round for the shares.
# The builds' order rotates from round to round (the first of a round runs faster),
# so give as many rounds as builds, or a multiple.
# Usage: scripts/bench-steps.sh ROUNDS SECS BUILD... where a BUILD is a git revision
# or "." for the working tree. Needs PostgreSQL (KASSA_BENCH_POSTGRES_DSN).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=$1; secs=$2; shift 2
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
schema="steps_$$"
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; rm -rf "$work"' EXIT
go build -o "$work/kassa-load" ./cmd/kassa-load
. scripts/lib-builds.sh
build_revs "$work" "$@"
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)
tck=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
# pgcpu: the CPU ticks of every PostgreSQL server process (backends and helpers).
pgcpu() { local s=0 p; for p in $(pgrep -f '^postgres'); do s=$((s + $(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$s"; }
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

"$work/kassa-load" echo -addr 127.0.0.1:0 >"$work/echo.out" &
wait_line "$work/echo.out" "listening on"
echo_url="http://$(awk '/listening on/ {print $4}' "$work/echo.out")"

# load BUILD ENGINE MODE: one measured run against the started server.
load() {
  local c0 c1 g0 g1 line reqs us pgus
  c0=$(cpu "$pid"); g0=$(pgcpu)
  line=$("$work/kassa-load" run -mode "$3" -d "${secs}s" -c 16 -url "$url" -key "$key")
  c1=$(cpu "$pid"); g1=$(pgcpu)
  reqs=$(grep -o 'requests=[0-9]*' <<<"$line" | cut -d= -f2)
  us=$(awk -v c=$((c1 - c0)) -v t="$tck" -v n="$reqs" 'BEGIN {printf "%.0f", c * 1e6 / t / n}')
  pgus=$(awk -v c=$((g1 - g0)) -v t="$tck" -v n="$reqs" 'BEGIN {printf "%.0f", c * 1e6 / t / n}')
  echo "$1 $2-$3 $line cpu_us_per_req=$us pg_us=$pgus" | tee -a "$work/figures"
}

for r in $(seq 1 "$rounds"); do
  echo "== round $r"
  "$work/kassa-load" run -mode echo -d "${secs}s" -c 16 -url "$echo_url" | sed 's/^/echo echo-echo /' | tee -a "$work/figures"
  # The builds take turns going first: on this kind of machine the build that runs
  # first in a round measured up to 20 % faster than the same build second.
  order=("${names[@]:$(( (r - 1) % ${#names[@]} ))}" "${names[@]:0:$(( (r - 1) % ${#names[@]} ))}")
  for n in "${order[@]}"; do
    for engine in sqlite postgres; do
      extra=()
      if [ "$engine" = postgres ]; then
        psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
        extra=(--database-url "$pg&search_path=$schema")
      fi
      rm -rf "$work/run"
      "$work/kassa-$n" serve --dev --devchain=false --addr 127.0.0.1:0 --data-dir "$work/run" "${unlimited[@]}" "${extra[@]}" \
        >"$work/run.out" 2>"$work/run.err" &
      pid=$!
      wait_line "$work/run.out" "kassa listening on"
      url="http://$(awk '/kassa listening on/ {print $4}' "$work/run.out")"
      key=$(awk '/merchant key:/ {print $3}' "$work/run.out")
      load "$n" "$engine" create
      # Lists measure the steady state, the new rows analyzed (bench.sh says why).
      if [ "$engine" = postgres ]; then psql "$pg" -qc "ANALYZE $schema.invoices"; fi
      load "$n" "$engine" list
      kill "$pid"; wait "$pid" 2>/dev/null || true
      if [ "$engine" = postgres ]; then
        psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null
      fi
    done
  done
done

# median BUILD LOAD FIELD: the median of FIELD over the rounds.
median() {
  awk -v b="$1" -v l="$2" '$1 == b && $2 == l' "$work/figures" | grep -o "$3=[0-9]*" | cut -d= -f2 | sort -n |
    awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2))}'
}
echo_med=$(median echo echo-echo req/s)
echo
echo "== medians over $rounds rounds (${secs} s, 16 connections); echo $echo_med req/s; each cell: req/s (share of the echo), server CPU µs per request (+ PostgreSQL's)"
echo "| build | SQLite create | SQLite list | PostgreSQL create | PostgreSQL list |"
echo "|---|---|---|---|---|"
for n in "${names[@]}"; do
  row="| $n"
  for l in sqlite-create sqlite-list postgres-create postgres-list; do
    m=$(median "$n" "$l" req/s)
    row="$row | $m ($(awk -v a="$m" -v b="$echo_med" 'BEGIN {printf "%.1f", 100*a/b}') %), $(median "$n" "$l" cpu_us_per_req) µs"
    case $l in postgres-*) row="$row (+ $(median "$n" "$l" pg_us) µs)" ;; esac
  done
  echo "$row |"
done
