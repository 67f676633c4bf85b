#!/usr/bin/env bash
# Invoice list (GET /api/v1/invoices?limit=10, kassa-load's list mode) of two or more
# kassa builds on the same data: one SQLite data dir is seeded once (creates for
# SEED seconds), and every run serves a fresh copy of it. Builds alternate within
# each round, so drifts of a shared machine hit them alike. Each run prints req/s
# and the server's CPU per request (utime+stime of /proc/PID/stat, fields 14 and 15),
# which contention from other processes on the machine disturbs far less.
# Usage: scripts/bench-list.sh ROUNDS SECS BUILD... where a BUILD is a git revision
# ("HEAD", "2cf6d72") or "." for the working tree. SEED (default 18) is the seconds
# of creates. Figures: docs/performance.md, "Fast paths".
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=$1; secs=$2; shift 2
seed=${SEED:-18}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/kassa-load" ./cmd/kassa-load
. scripts/lib-builds.sh
build_revs "$work" "$@"
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)
tck=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }

# serve BIN DIR: start a server on DIR; sets pid, url, key.
serve() {
  "$1" serve --dev --devchain=false --addr 127.0.0.1:0 --data-dir "$2" "${unlimited[@]}" >"$2.out" 2>"$2.err" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "kassa listening on" "$2.out" && break; sleep 0.1; done
  url="http://$(awk '/kassa listening on/ {print $4}' "$2.out")"
  key=$(awk '/merchant key:/ {print $3}' "$2.out")
}

serve "$work/kassa-${names[0]}" "$work/seed"
"$work/kassa-load" run -mode create -d "${seed}s" -c 16 -url "$url" -key "$key"
kill "$pid"; wait "$pid" 2>/dev/null || true

for r in $(seq 1 "$rounds"); do
  for n in "${names[@]}"; do
    rm -rf "$work/run"; cp -r "$work/seed" "$work/run"
    serve "$work/kassa-$n" "$work/run"
    c0=$(cpu "$pid")
    line=$("$work/kassa-load" run -mode list -d "${secs}s" -c 16 -url "$url" -key "$key")
    c1=$(cpu "$pid")
    reqs=$(grep -o 'requests=[0-9]*' <<<"$line" | cut -d= -f2)
    us=$(awk -v c=$((c1 - c0)) -v t="$tck" -v n="$reqs" 'BEGIN {printf "%.0f", c * 1e6 / t / n}')
    echo "round $r $n $line cpu_us_per_req=$us" | tee -a "$work/figures"
    kill "$pid"; wait "$pid" 2>/dev/null || true
  done
done

# median BUILD FIELD: the median of FIELD (req/s or cpu_us_per_req) over the rounds.
median() {
  awk -v b="$1" '$3 == b' "$work/figures" | grep -o "$2=[0-9]*" | cut -d= -f2 | sort -n |
    awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2))}'
}
echo
echo "== medians over $rounds rounds (${secs} s, 16 connections)"
for n in "${names[@]}"; do
  echo "$n: req/s $(median "$n" req/s), server CPU per request $(median "$n" cpu_us_per_req) µs"
done
