#!/usr/bin/env bash
# Measures invoice create and list req/s with 1, 2 and 3 kassa serve processes on one
# PostgreSQL schema: three instances run (same secret, secrets key and master keys, as
# behind a proxy) and for N in 1 2 3 the load goes round robin over the first N.
# Rate limits are lifted (as in bench.sh) but the budgets stay in the database
# (--rate-limit-store default: auto, i.e. database on PostgreSQL), so every request
# still writes its budget row, as it would in production with several instances.
# Access logs are off. Usage: scripts/bench-instances.sh [seconds] [connections].
# Figures go to docs/performance.md ("Several instances on one PostgreSQL").
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conc=${2:-16}
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
schema="bench_inst_$$"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/kassa" ./cmd/kassa
go build -o "$work/kassa-load" ./cmd/kassa-load
high=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)

# wait_line FILE PATTERN: wait until a started process prints PATTERN.
wait_line() { for _ in $(seq 1 100); do grep -qs "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }
hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# What every instance shares: the database schema, the server secret and the secrets
# key (environment), and the master keys (the first start makes them, sealed under
# the secrets key; the others get copies of the key files).
export KASSA_SECRET=$(hex 24) KASSA_SECRETS_KEY=$(hex 32)
psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
dsn="$pg&search_path=$schema"
common=(--database-url "$dsn" --access-log off --drain-delay 0 "${high[@]}")

# Seed the demo merchant and its key with one --dev start (no dev chain), then stop it.
"$work/kassa" serve --dev --devchain=false --addr 127.0.0.1:0 --data-dir "$work/d1" "${common[@]}" \
  >"$work/seed.out" 2>"$work/seed.err" &
seed=$!
wait_line "$work/seed.out" "kassa listening on"
key=$(awk '/merchant key:/ {print $3}' "$work/seed.out")
kill "$seed"; wait "$seed" 2>/dev/null || true

urls=()
for i in 1 2 3; do
  if [ "$i" != 1 ]; then
    mkdir -m 700 "$work/d$i"
    cp -p "$work"/d1/master-*.key "$work/d$i/"
  fi
  "$work/kassa" serve --addr 127.0.0.1:0 --data-dir "$work/d$i" "${common[@]}" >"$work/i$i.out" 2>"$work/i$i.err" &
  wait_line "$work/i$i.out" "kassa listening on"
  urls+=("http://$(awk '/kassa listening on/ {print $4}' "$work/i$i.out")")
done

declare -A rps
for n in 1 2 3; do
  spread=$(IFS=,; echo "${urls[*]:0:$n}")
  for mode in create list; do
    echo "== $n instance(s) on one PostgreSQL: $mode"
    line=$("$work/kassa-load" run -d "${secs}s" -c "$conc" -mode "$mode" -url "$spread" -key "$key")
    echo "$line"
    rps[$n.$mode]=$(grep -o 'req/s=[0-9]*' <<<"$line" | cut -d= -f2)
  done
done

echo
echo "| instances | create req/s | list req/s |"
echo "|---|---|---|"
for n in 1 2 3; do echo "| $n | ${rps[$n.create]} | ${rps[$n.list]} |"; done
