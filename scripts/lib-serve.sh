# Sourced, from the repository root, by the scripts that measure a kassa serve --dev
# with kassa-load (bench-events.sh, bench-pages.sh). It sets:
#   pg        the PostgreSQL DSN: KASSA_BENCH_POSTGRES_DSN, or the local test database;
#   work      a temporary directory; on exit the started processes are stopped, the
#             schema named by $schema (set by new_schema) is dropped and work removed;
#   unlimited serve flags that lift the rate limits, so the limiter is not what is measured;
#   tck       the clock ticks a second of /proc/PID/stat.
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
schema=""
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "$schema" ]; then
    psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)
tck=$(getconf CLK_TCK)

# need_files N WHAT: raises the open-file limit; exits when it stays under N (WHAT
# says what needs them). Each stream is a connection: a descriptor in the server and
# one in the tool.
need_files() {
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$1" ]; then
    echo "ulimit -n is $(ulimit -n); $2 need more" >&2; exit 1
  fi
}

# build_tools: builds kassa and kassa-load from the working tree into work, and
# prints the line that heads the figures.
build_tools() {
  go build -o "$work/kassa" ./cmd/kassa
  go build -o "$work/kassa-load" ./cmd/kassa-load
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git rev-parse --short HEAD)  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)  ulimit -n: $(ulimit -n)  $(go version | awk '{print $3}')"
}

# new_schema PREFIX: creates the PostgreSQL schema PREFIX_PID, named in schema.
new_schema() {
  schema="$1_$$"
  psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
}

# wait_line FILE PATTERN: waits until a started process prints PATTERN (30 s at most).
wait_line() { for _ in $(seq 1 300); do grep -qs "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; cat "$1" "${1%.out}.err" >&2 2>/dev/null; exit 1; }
# cpu PID: user+system CPU seconds the process has used so far.
cpu() { awk -v t="$tck" '{printf "%.2f", ($14+$15)/t}' "/proc/$1/stat"; }

# start_kassa NAME [serve flags…]: runs kassa serve --dev on a loopback port with the
# rate limits lifted, and waits until it listens; sets pid, url, key and out (its
# standard output; the errors go beside it, .err for .out).
start_kassa() {
  local name=$1; shift
  out="$work/$name.$RANDOM.out"
  "$work/kassa" serve --dev --addr 127.0.0.1:0 "${unlimited[@]}" "$@" >"$out" 2>"${out%.out}.err" &
  pid=$!
  wait_line "$out" "kassa listening on"
  url="http://$(awk '/kassa listening on/ {print $4}' "$out")"
  key=$(awk '/merchant key:/ {print $3}' "$out")
}
stop_kassa() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
