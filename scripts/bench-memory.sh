#!/usr/bin/env bash
# Measures the memory of `kassa serve` after a create load, on SQLite and PostgreSQL
# (issue 17): for each engine a fresh server (data dir or schema) without rate
# limits or the dev chain, `kassa-load run -mode create` for SECONDS with CONN
# connections, then the process's resident memory (VmRSS, RssAnon, RssFile from
# /proc/PID/status, and VmHWM, its high-water mark; RssFile split by mapping from /proc/PID/smaps) and Go's own
# figures (runtime.MemStats from /debug/pprof/heap?debug=1 on --pprof-addr), right
# after the load and again after IDLE seconds without requests.
# Usage: scripts/bench-memory.sh [seconds] [connections] [idle seconds] [rounds]
# Prints each snapshot, then the median of each figure over the rounds (MiB), and on
# its last line the resident and high-water memory after the load of each engine.
# KASSA_MEM_BIN=path runs that kassa binary instead of one built from the tree (a
# variant built to attribute memory); KASSA_MEM_ENGINES="sqlite" runs one engine.
# Figures go to docs/performance.md, "Storage and memory (issue 17)".
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
conc=${2:-16}
idle=${3:-10}
rounds=${4:-3}
pg=${KASSA_BENCH_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# The binary measured is a copy, as an installed one is: straight from the Go linker
# (which writes its output through a shared mapping) the same binary started with
# 52.6 MiB of its file resident instead of 36, on this machine's kernel.
if [ -n "${KASSA_MEM_BIN:-}" ]; then cp "$KASSA_MEM_BIN" "$work/kassa"; else go build -o "$work/kassa.linked" ./cmd/kassa && cp "$work/kassa.linked" "$work/kassa"; fi
engines=${KASSA_MEM_ENGINES:-sqlite postgres}
go build -o "$work/kassa-load" ./cmd/kassa-load
echo "kassa binary: $(stat -c %s "$work/kassa" | awk '{printf "%.1f", $1 / 1048576}') MiB"
unlimited=(--rate-limit 1e9 --rate-burst 1000000000 --create-rate-limit 1e9 --create-rate-burst 1000000000)

# wait_line FILE PATTERN: wait until a started process prints PATTERN.
wait_line() { for _ in $(seq 1 100); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }

mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }

# snapshot KEY PID PPROF DATADIR: print the process's memory and keep each figure
# (MiB) under KEY for the summary.
snapshot() {
  local key=$1 pid=$2 pprof=$3 dir=$4
  local status=/proc/$pid/status
  local rss hwm anon file shmem threads
  rss=$(awk '/^VmRSS:/ {print $2}' "$status")
  hwm=$(awk '/^VmHWM:/ {print $2}' "$status")
  anon=$(awk '/^RssAnon:/ {print $2}' "$status")
  file=$(awk '/^RssFile:/ {print $2}' "$status")
  shmem=$(awk '/^RssShmem:/ {print $2}' "$status")
  threads=$(awk '/^Threads:/ {print $2}' "$status")
  # RssFile by mapping: the database file (mmap_size), the WAL index (-shm), the
  # binary's own pages, the rest.
  local maps
  maps=$(awk -v db="$dir/kassa.db" '
    /^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "") ? "[anon]" : $6; next }
    $1 == "Rss:" {
      if (name == db) k = "db_mmap"; else if (name == db "-shm") k = "db_shm";
      else if (name ~ /\/kassa$/) k = "binary"; else if (name ~ /^\[/) k = "anon_maps"; else k = "other_files";
      s[k] += $2
    }
    END { for (k in s) printf "%s=%.1f ", k, s[k] / 1024 }' "/proc/$pid/smaps")
  # Go's view: runtime.MemStats, the last lines of the heap profile in text form.
  local ms
  ms=$(curl -s "http://$pprof/debug/pprof/heap?debug=1" | awk '
    $1 == "#" && ($2 == "HeapAlloc" || $2 == "HeapInuse" || $2 == "HeapIdle" || $2 == "HeapReleased" ||
      $2 == "HeapSys" || $2 == "StackSys" || $2 == "Sys" || $2 == "NumGC") && $3 == "=" {
      if ($2 == "NumGC") printf "%s=%s ", $2, $4; else printf "go_%s=%.1f ", $2, $4 / 1048576 }
    $1 == "#" && $2 == "Stack" && $3 == "=" { printf "go_StackSys=%.1f ", $6 / 1048576 }')
  local files=""
  if [ -f "$dir/kassa.db" ]; then
    files=$(for f in "$dir"/kassa.db*; do printf '%s=%.1f ' "$(basename "$f")" "$(stat -c %s "$f" | awk '{print $1 / 1048576}')"; done)
  fi
  echo "  $key: VmRSS=$(mib "$rss") VmHWM=$(mib "$hwm") RssAnon=$(mib "$anon") RssFile=$(mib "$file") RssShmem=$(mib "$shmem") threads=$threads"
  echo "    RssFile+RssShmem by mapping: $maps"
  echo "    Go: $ms"
  [ -n "$files" ] && echo "    files (MiB): $files"
  for kv in "VmRSS=$(mib "$rss")" "VmHWM=$(mib "$hwm")" "RssAnon=$(mib "$anon")" "RssFile=$(mib "$file")" "RssShmem=$(mib "$shmem")" $maps $ms; do
    echo "$key ${kv%%=*} ${kv#*=}" >>"$work/figures"
  done
}

run_engine() { # name, data dir, then extra serve flags
  local name=$1 dir=$2; shift 2
  local out="$work/$name.out"
  rm -rf "$dir"
  "$work/kassa" serve --dev --devchain=false --addr 127.0.0.1:0 --pprof-addr 127.0.0.1:0 --data-dir "$dir" \
    "${unlimited[@]}" "$@" >"$out" 2>"$work/$name.err" &
  local pid=$!
  wait_line "$out" "kassa listening on"
  local url="http://$(awk '/kassa listening on/ {print $4}' "$out")"
  local pprof=$(awk '/pprof listening on/ {print $4}' "$out")
  local key=$(awk '/merchant key:/ {print $3}' "$out")
  echo "== $name"
  snapshot "$name-started" "$pid" "$pprof" "$dir"
  "$work/kassa-load" run -mode create -d "${secs}s" -c "$conc" -url "$url" -key "$key"
  snapshot "$name-loaded" "$pid" "$pprof" "$dir"
  sleep "$idle"
  snapshot "$name-idle" "$pid" "$pprof" "$dir"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

schema="benchmem_$$"
for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds (${secs} s create, $conc connections, then ${idle} s idle)"
  if [[ " $engines " == *" sqlite "* ]]; then run_engine sqlite "$work/sqlite"; fi
  if [[ " $engines " == *" postgres "* ]]; then
    psql "$pg" -qc "CREATE SCHEMA $schema" >/dev/null
    run_engine postgres "$work/postgres" --database-url "$pg&search_path=$schema"
    psql "$pg" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null
  fi
done

# median KEY FIGURE: the median of FIGURE over the rounds' snapshots KEY.
median() { awk -v k="$1" -v f="$2" '$1 == k && $2 == f {print $3}' "$work/figures" | sort -n |
  awk '{v[NR]=$1} END {if (NR) print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2); else print "-"}'; }
echo
echo "== medians over $rounds rounds, MiB"
cols=(VmRSS VmHWM RssAnon RssFile RssShmem db_mmap db_shm binary go_Sys go_HeapSys go_HeapInuse go_HeapReleased go_StackSys)
printf '| %-17s |' snapshot; printf ' %s |' "${cols[@]}"; echo
printf '|---|'; printf -- '---|%.0s' "${cols[@]}"; echo
for key in sqlite-started sqlite-loaded sqlite-idle postgres-started postgres-loaded postgres-idle; do
  printf '| %-17s |' "$key"
  for c in "${cols[@]}"; do printf ' %s |' "$(median "$key" "$c")"; done
  echo
done
# The last line: the goal's figures, resident and high-water after the load (MiB).
line="after ${secs} s of creates (medians of $rounds):"
for e in $engines; do line="$line $e VmRSS $(median "$e-loaded" VmRSS) VmHWM $(median "$e-loaded" VmHWM) MiB;"; done
echo "${line%;}"
