#!/usr/bin/env bash
# Measures the dashboard (docs/performance.md, "Dashboard"):
#  1. server time per page of GET /dashboard/invoices with 100,000 invoices on
#     SQLite, seeded through the store (api TestDashboardInvoicesPerf times the
#     handler itself: session, query, template);
#  2. page weight on serve --dev: the invoices list (25 rows), an invoice page and
#     the CSS and JS, as sent (Accept-Encoding: gzip) and what gzip would make them.
# Usage: scripts/bench-dashboard.sh [invoices]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
KASSA_PERF_INVOICES=$n go test ./api -run '^TestDashboardInvoicesPerf$' -count=1 -v -timeout 30m | grep -E 'seeded|\|'

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/kassa" ./cmd/kassa
"$work/kassa" serve --dev --addr 127.0.0.1:0 --data-dir "$work/data" >"$work/out" 2>/dev/null &
for _ in $(seq 1 300); do grep -q "kassa listening on" "$work/out" && break; sleep 0.1; done
base="http://$(awk '/kassa listening on/ {print $4}' "$work/out")"
key=$(awk '/merchant key:/ {print $3}' "$work/out")
email=$(awk '/login email:/ {print $3}' "$work/out")
password=$(awk '/login password:/ {print $3}' "$work/out")
for i in $(seq 1 25); do
  id=$(curl -s -X POST "$base/api/v1/invoices" -H "x-api-key: $key" -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \
    -H 'Content-Type: application/json' -d "{\"amount_usd\": $i, \"description\": \"Two ceramic mugs, order $i\", \"customer_id\": \"cust_$i\"}" | jq -r .invoice_id)
done
jar="$work/jar"
curl -s -o /dev/null -c "$jar" --data-urlencode "email=$email" --data-urlencode "password=$password" "$base/dashboard/login"
# weight URL: bytes as sent with Accept-Encoding: gzip (and the Content-Encoding), and gzip -9 of the body.
weight() {
  sent=$(curl -s -b "$jar" -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download} %header{content-encoding}' "$1")
  gz=$(curl -s -b "$jar" "$1" | gzip -9 | wc -c)
  echo "$sent (gzip would be $gz)"
}
list=$(curl -s -b "$jar" "$base/dashboard/invoices")
css=$(echo "$list" | grep -o '/dashboard/assets/[^"]*dashboard.css')
js=$(echo "$list" | grep -o '/dashboard/assets/[^"]*dashboard.js')
echo "invoices list (25 rows): $(weight "$base/dashboard/invoices")"
echo "invoice page:            $(weight "$base/dashboard/invoices/$id")"
echo "dashboard.css:           $(weight "$base$css")"
echo "dashboard.js:            $(weight "$base$js")"
