package chain_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/devchain/oztoken"
)

// The external node BenchmarkDetectionLatency measures against instead of the
// embedded dev chain: an EVM node nobody here wrote (scripts/bench-latency-ganache.sh
// runs Ganache), with chain id devchain.ChainID, mining on its own timer.
const (
	benchRPCEnv = "KASSA_BENCH_RPC_URL" // its HTTP JSON-RPC endpoint
	benchWSEnv  = "KASSA_BENCH_WS_URL"  // its WebSocket endpoint (newHeads)
	benchKeyEnv = "KASSA_BENCH_KEY"     // the hex private key of an account holding ETH there
)

// externalNode is the node of KASSA_BENCH_RPC_URL and KASSA_BENCH_WS_URL, or nil
// when KASSA_BENCH_RPC_URL is unset. It is a devChain without an embedded chain:
// only send, sendAsync and head apply.
func externalNode(tb testing.TB) (d *devChain, rpcURL, wsURL string) {
	tb.Helper()
	rpcURL, wsURL = os.Getenv(benchRPCEnv), os.Getenv(benchWSEnv)
	if rpcURL == "" {
		return nil, "", ""
	}
	if wsURL == "" {
		tb.Fatalf("%s is set but %s is not", benchRPCEnv, benchWSEnv)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(os.Getenv(benchKeyEnv), "0x"))
	if err != nil {
		tb.Fatalf("%s: %v", benchKeyEnv, err)
	}
	client, err := ethclient.Dial(rpcURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(client.Close)
	id, err := client.ChainID(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if id.Int64() != devchain.ChainID {
		tb.Fatalf("the node at %s has chain id %v, want %d (the devchain network's)", rpcURL, id, devchain.ChainID)
	}
	return &devChain{client: client, keys: []*ecdsa.PrivateKey{key}, nonces: map[int]uint64{}}, rpcURL, wsURL
}

// deployOZT deploys OpenZeppelin's ERC-20 on the node at url from d's account 0,
// which holds its whole supply, and returns its address.
func deployOZT(tb testing.TB, d *devChain, url string) string {
	tb.Helper()
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	addr, err := oztoken.Deploy(context.Background(), url, d.keys[0], "OpenZeppelin Token", "OZT", supply, addressOf(d.keys[0]))
	if err != nil {
		tb.Fatal(err)
	}
	d.mu.Lock()
	delete(d.nonces, 0) // the deployment used a nonce
	d.mu.Unlock()
	return addr
}
