#!/usr/bin/env bash
# Measures the store at size (docs/performance.md, "The store at size"): seeds a
# store through the store's own writes (cmd/kassa-seed) unless it is seeded
# already, then times the dashboard's reads of the biggest merchant (70 % of the
# invoices), p50 and p99 of 100 rounds after 5 untimed (at least 3 when they
# take over 20 s), prints the bytes per
# invoice on disk, and streams invoices.csv of the last 30 and 365 days with the
# process's memory high-water mark. The last line is the summary.
# Usage: scripts/bench-size.sh sqlite DIR [invoices]     (default 1,000,000)
#        scripts/bench-size.sh postgres URL [invoices]   (default 10,000,000)
# Use a database of its own (createdb kassa_size), never one that tests use.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=${1:?sqlite DIR or postgres URL}
where=${2:?sqlite DIR or postgres URL}
case $engine in
  sqlite) flag=(-data-dir "$where"); n=${3:-1000000} ;;
  postgres) flag=(-db "$where"); n=${3:-10000000} ;;
  *) echo "unknown engine $engine" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/kassa-seed" ./cmd/kassa-seed

seeded=$("$work/kassa-seed" measure "${flag[@]}" -rounds 0 2>/dev/null | awk '/bytes on disk/ {print $6}' || true)
if [ -z "$seeded" ] || [ "$seeded" = 0 ]; then
  echo "== seeding $n invoices ($engine)"
  "$work/kassa-seed" seed "${flag[@]}" -n "$n" -workers 128 | tail -n 1
fi
echo "== reads of the biggest merchant (| query | rows | p50 | p99 | rounds |)"
"$work/kassa-seed" measure "${flag[@]}" -rounds 100 | tee "$work/measure"
echo "== invoices.csv streamed (| report | bytes | time | memory |)"
for days in 30 365; do "$work/kassa-seed" csv "${flag[@]}" -days "$days" | tee -a "$work/csv" | grep invoices.csv; done
p99() { awk -F'|' -v q="$1" 'index($2, q) {gsub(/ /, "", $5); print $5; exit}' "$work/measure"; }
printf 'summary: %s, %s invoices: first page p99 %s, page behind a cursor %s, status and dates %s, rare word %s, overview %s; %s; csv of a year (%s)\n' \
  "$engine" "$(awk '/bytes on disk/ {print $6}' "$work/measure")" "$(p99 'first page')" "$(p99 'page behind')" \
  "$(p99 'status=paid')" "$(p99 'q=zanzibar')" "$(p99 'dashboard overview')" \
  "$(awk -F'|' '/bytes on disk/ {gsub(/^ +| +$/, "", $5); print $5}' "$work/measure")" \
  "$(awk -F'|' '/last 365/ {split($3, r, ","); sub(/ \(.*/, "", $5); gsub(/^ +| +$/, "", r[1]); gsub(/^ +/, "", $5); print r[1] ", " $5}' "$work/csv")"
