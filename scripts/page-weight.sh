#!/usr/bin/env bash
# Measures what the payment page weighs over the wire (gzip, as browsers ask):
# the HTML of the token choice and of the deposit address, the stylesheet, the
# script and the token icons; the QR code is reported apart.
# Usage: scripts/page-weight.sh. Figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/kassa" ./cmd/kassa
"$work/kassa" serve --dev --addr 127.0.0.1:0 --data-dir "$work/data" >"$work/out" 2>/dev/null &
for _ in $(seq 1 100); do grep -q "kassa listening on" "$work/out" && break; sleep 0.1; done
base="http://$(awk '/kassa listening on/ {print $4}' "$work/out")"
key=$(awk '/merchant key:/ {print $3}' "$work/out")
inv=$(curl -s -X POST "$base/api/v1/invoices" -H "x-api-key: $key" -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \
  -H 'Content-Type: application/json' -d '{"amount_usd": 25, "description": "Two mugs", "invoice_title": "Northwind Goods"}')
url=$(echo "$inv" | jq -r .payment_url); id=$(echo "$inv" | jq -r .invoice_id)
s=$(echo "$inv" | jq -r .session_token); g=$(echo "$inv" | jq -r .signature)
size() { curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$1"; }
html1=$(size "$url")
page=$(curl -s "$url")
css=$(size "$base$(echo "$page" | grep -o '/pay/assets/[^"]*pay.css')")
js=$(size "$base$(echo "$page" | grep -o '/pay/assets/[^"]*pay.js')")
# Token icons as the page links them (content-hashed), each counted once.
icons=0; n=0
for i in $(echo "$page" | grep -o '/pay/assets/[^"]*/tokens/[^"]*\.svg' | sort -u); do
  icons=$((icons + $(size "$base$i"))); n=$((n + 1))
done
usdt=$(size "$base$(echo "$page" | grep -o '/pay/assets/[^"]*/tokens/usdt\.svg' | head -1)")
curl -s -o /dev/null -X POST "$base/pay/$id/token" --data-urlencode "session=$s" --data-urlencode "signature=$g" -d token_id=1
html2=$(size "$url")
qr=$(size "$base$(curl -s "$url" | grep -o 'id="qr" src="[^"]*"' | sed 's/.*src="//; s/"$//; s/&amp;/\&/g')")
echo "token choice page: html=$html1 css=$css js=$js icons=$icons ($n) total=$((html1 + css + js + icons)) bytes (gzip)"
echo "address page:      html=$html2 css=$css js=$js icon=$usdt total=$((html2 + css + js + usdt)) bytes (gzip); QR png=$qr bytes"
