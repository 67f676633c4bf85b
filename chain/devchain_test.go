package chain_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/devchain"
)

// devChain is the embedded dev chain of serve --dev, started for a test, with a
// client and the funded accounts' keys.
type devChain struct {
	*devchain.Chain
	client  *ethclient.Client
	keys    []*ecdsa.PrivateKey
	mu      sync.Mutex
	nonces  map[int]uint64
	dataDir string
}

func startDevChain(tb testing.TB, blockTime time.Duration) *devChain {
	tb.Helper()
	dir := tb.TempDir()
	c, err := devchain.Start(devchain.Config{DataDir: dir, Addr: "127.0.0.1:0", BlockTime: blockTime})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	client, err := ethclient.Dial(c.URL())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(client.Close)
	d := &devChain{Chain: c, client: client, nonces: map[int]uint64{}, dataDir: dir}
	for _, a := range devchain.Accounts() {
		k, err := crypto.HexToECDSA(a.PrivateKey)
		if err != nil {
			tb.Fatal(err)
		}
		d.keys = append(d.keys, k)
	}
	return d
}

// pool is a chain.Pool of the dev chain's endpoint.
func (d *devChain) pool(tb testing.TB) *chain.Pool {
	tb.Helper()
	return poolAt(tb, d.URL())
}

// poolAt is a checked chain.Pool of devchain (chain id devchain.ChainID) over the
// JSON-RPC endpoint url.
func poolAt(tb testing.TB, url string) *chain.Pool {
	tb.Helper()
	p, err := chain.NewPool("devchain", devchain.ChainID, []string{url}, chain.PoolOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	if err := p.Check(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return p
}

// send signs and sends, from dev account from, a transfer of units of token
// (a contract address; "" for ETH) to to, waits until it is mined, and returns
// its hash.
func (d *devChain) send(tb testing.TB, from int, token, to string, units *big.Int) string {
	tb.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	hash := d.sendAsync(tb, from, token, to, units)
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := d.client.TransactionReceipt(context.Background(), common.HexToHash(hash)); err == nil {
			return hash
		}
	}
	tb.Fatalf("transaction %s was not mined", hash)
	return ""
}

// sendAsync is send without waiting for the transaction to be mined; the caller
// holds d.mu.
func (d *devChain) sendAsync(tb testing.TB, from int, token, to string, units *big.Int) string {
	tb.Helper()
	ctx := context.Background()
	key := d.keys[from]
	if _, ok := d.nonces[from]; !ok {
		n, err := d.client.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
		if err != nil {
			tb.Fatal(err)
		}
		d.nonces[from] = n
	}
	target, value, data, gas := common.HexToAddress(to), units, []byte(nil), uint64(21_000)
	if token != "" {
		target, value, gas = common.HexToAddress(token), new(big.Int), 100_000
		data = append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(common.HexToAddress(to).Bytes(), 32)...)
		data = append(data, common.LeftPadBytes(units.Bytes(), 32)...)
	}
	id := big.NewInt(devchain.ChainID)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: d.nonces[from], GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(100e9), Gas: gas, To: &target, Value: value, Data: data}), types.LatestSignerForChainID(id), key)
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.client.SendTransaction(ctx, tx); err != nil {
		tb.Fatalf("send: %v", err)
	}
	d.nonces[from]++
	return strings.ToLower(tx.Hash().Hex())
}

// head is the dev chain's block number.
func (d *devChain) head(tb testing.TB) uint64 {
	tb.Helper()
	n, err := d.client.BlockNumber(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// reorgTo makes block number the head (dropping every block above it, a
// reorganisation); keep puts the dropped blocks' transactions back in the pool to be
// mined again in new blocks.
func (d *devChain) reorgTo(tb testing.TB, number uint64, keep bool) {
	tb.Helper()
	h, err := d.client.HeaderByNumber(context.Background(), new(big.Int).SetUint64(number))
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.ReorgTo(h.Hash().Hex(), keep); err != nil {
		tb.Fatalf("ReorgTo(%d): %v", number, err)
	}
}
