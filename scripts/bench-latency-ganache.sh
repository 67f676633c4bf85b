#!/usr/bin/env bash
# scripts/bench-latency.sh against an external node: Ganache (npm ganache@7.9.2, an EVM
# node nobody here wrote, HTTP and WebSocket on one port), installed with npm into a
# temporary directory, mining a block a second with chain id 1337 (the devchain
# network's). The benchmark deploys OpenZeppelin's ERC-20 there from Ganache's first
# deterministic account and pays in it (docs/performance.md, "Payment latency").
# SQLite unless KASSA_TEST_POSTGRES_DSN is set. Needs node and npm.
# Usage: scripts/bench-latency-ganache.sh [payments per mode, default 40]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-40}
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
npm install --prefix "$work" --no-audit --no-fund --loglevel error ganache@7.9.2 >&2
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
"$work/node_modules/.bin/ganache" --miner.blockTime 1 --wallet.deterministic --chain.chainId 1337 \
  --server.host 127.0.0.1 --server.port "$port" --logging.quiet \
  --wallet.accountKeysPath "$work/keys.json" >"$work/ganache.log" 2>&1 &
pid=$!
for i in $(seq 600); do
  if curl -sf -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' \
    "http://127.0.0.1:$port" >/dev/null 2>&1 && [ -s "$work/keys.json" ]; then break; fi
  if [ "$i" = 600 ]; then cat "$work/ganache.log" >&2; echo "ganache did not start" >&2; exit 1; fi
  sleep 0.1
done
key=$(node -e 'const k = require(process.argv[1]).private_keys; console.log(Object.values(k)[0])' "$work/keys.json")
echo "ganache $("$work/node_modules/.bin/ganache" --version | head -1) on port $port" >&2
KASSA_BENCH_RPC_URL="http://127.0.0.1:$port" KASSA_BENCH_WS_URL="ws://127.0.0.1:$port" KASSA_BENCH_KEY="$key" \
  scripts/bench-latency.sh "$n"
