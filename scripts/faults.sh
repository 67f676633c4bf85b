#!/usr/bin/env bash
# The fault suite (docs/operations.md, "Fault suite"): kill -9 under idempotent load
# (SQLite and PostgreSQL), a private PostgreSQL restarted and stopped for 15 s under
# load, a webhook receiver down for minutes, an instance killed among three, slow and
# idle clients. Each test asserts correctness and logs its figures on "figure:" lines;
# this script runs them and prints those lines at the end. It takes about 20 minutes.
#
# Usage: scripts/faults.sh [go test -run pattern]
#   KASSA_TEST_POSTGRES_DSN      PostgreSQL for the kill test and the three instances
#                                (default postgres://postgres@127.0.0.1:5432/test?sslmode=disable;
#                                 set it empty to run the kill test on SQLite only)
#   KASSA_FAULTS_KILLS           kills per engine (default 3)
#   KASSA_FAULTS_WEBHOOK_DOWN    how long the webhook receiver is down (default 2m)
#   KASSA_FAULTS_WEBHOOK_WAIT    longest wait for the retry schedule once it is back (default 10m)
#   KASSA_FAULTS_SLOW_CLIENTS    connections of each slow kind (default 1000)
#   KASSA_FAULTS_PG_BIN          directory of initdb and pg_ctl (default /usr/lib/postgresql/15/bin)
#   KASSA_FAULTS_LOG             where the full log goes (default a temp file, printed)
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-'TestFault|TestInstanceKilledMidWork'}
export KASSA_FAULTS=1
export KASSA_TEST_POSTGRES_DSN=${KASSA_TEST_POSTGRES_DSN-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
log=${KASSA_FAULTS_LOG:-$(mktemp -t kassa-faults.XXXXXX.log)}

status=0
go test ./cmd/kassa -run "$run" -count=1 -v -timeout 30m 2>&1 | tee "$log" || status=$?

echo
echo "== fault suite figures (full log: $log)"
grep -E '^\s+\S+_test\.go:[0-9]+: figure: ' "$log" | sed -E 's/^\s+\S+_test\.go:[0-9]+: figure: /  /' || true
echo
echo "== results"
grep -E '^\s*--- (PASS|FAIL|SKIP)' "$log" || true
exit "$status"
