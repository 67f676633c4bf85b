package devchain_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/kassapay/kassa/devchain"
)

// within bounds every wait for the chain: generous, as tests run with -race on
// busy machines; nothing asserts how fast the chain is.
const within = 30 * time.Second

// erc20 is the standard ERC-20 interface the dev chain's tokens implement.
var erc20 = func() abi.ABI {
	const def = `[
{"type":"function","name":"name","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"symbol","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"decimals","inputs":[],"outputs":[{"type":"uint8"}]},
{"type":"function","name":"totalSupply","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"balanceOf","inputs":[{"name":"owner","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"allowance","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]}]`
	a, err := abi.JSON(strings.NewReader(def))
	if err != nil {
		panic(err)
	}
	return a
}()

var (
	usdt          = common.HexToAddress(devchain.USDTAddress)
	usdc          = common.HexToAddress(devchain.USDCAddress)
	transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	approvalTopic = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
)

// testChain is a dev chain started for a test, with an ethclient and a raw RPC
// client on its URL.
type testChain struct {
	*devchain.Chain
	tb     testing.TB
	client *ethclient.Client
	rpc    *rpc.Client
	once   sync.Once
}

// startChain starts a dev chain on dir (a fresh one when "") at 127.0.0.1:0; it
// is closed when the test ends, or before by close.
func startChain(tb testing.TB, dir string, blockTime time.Duration) *testChain {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	c, err := devchain.Start(devchain.Config{DataDir: dir, Addr: "127.0.0.1:0", BlockTime: blockTime})
	if err != nil {
		tb.Fatal(err)
	}
	tc := &testChain{Chain: c, tb: tb}
	tb.Cleanup(tc.close)
	if tc.rpc, err = rpc.Dial(c.URL()); err != nil {
		tb.Fatal(err)
	}
	tc.client = ethclient.NewClient(tc.rpc)
	return tc
}

// close closes the client and the chain (once).
func (c *testChain) close() {
	c.once.Do(func() {
		if c.client != nil {
			c.client.Close()
		}
		if err := c.Chain.Close(); err != nil {
			c.tb.Errorf("Close: %v", err)
		}
	})
}

// key is dev account i's private key.
func key(tb testing.TB, i int) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := crypto.HexToECDSA(devchain.Accounts()[i].PrivateKey)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// account is dev account i's address.
func account(i int) common.Address { return common.HexToAddress(devchain.Accounts()[i].Address) }

// freshAddress is a new address no one has used.
func freshAddress(tb testing.TB) common.Address {
	tb.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}

// units is n whole tokens of 6 decimals.
func units(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e6)) }

// pack ABI-encodes a call of an ERC-20 method.
func pack(tb testing.TB, method string, args ...any) []byte {
	tb.Helper()
	data, err := erc20.Pack(method, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// send signs and sends a transaction from dev account from with the next pending
// nonce and returns it; gas 0 estimates it.
func (c *testChain) send(from int, to common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	c.tb.Helper()
	ctx := context.Background()
	nonce, err := c.client.PendingNonceAt(ctx, account(from))
	if err != nil {
		c.tb.Fatal(err)
	}
	if gas == 0 {
		if gas, err = c.client.EstimateGas(ctx, ethereum.CallMsg{From: account(from), To: &to, Value: value, Data: data}); err != nil {
			c.tb.Fatalf("estimate gas: %v", err)
		}
	}
	tx := signed(c.tb, from, nonce, to, value, data, gas)
	if err := c.client.SendTransaction(ctx, tx); err != nil {
		c.tb.Fatalf("send: %v", err)
	}
	return tx
}

// signed is a transaction of dev account from, signed.
func signed(tb testing.TB, from int, nonce uint64, to common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	id := big.NewInt(devchain.ChainID)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(100e9), Gas: gas, To: &to, Value: value, Data: data}), types.LatestSignerForChainID(id), key(tb, from))
	if err != nil {
		tb.Fatal(err)
	}
	return tx
}

// sendToken sends a token method call (transfer, approve, transferFrom) from dev
// account from with a fixed gas limit, so that calls that revert are mined too.
func (c *testChain) sendToken(from int, token common.Address, method string, args ...any) *types.Transaction {
	c.tb.Helper()
	return c.send(from, token, new(big.Int), pack(c.tb, method, args...), 100_000)
}

// receipt waits for tx's receipt.
func (c *testChain) receipt(tx *types.Transaction) *types.Receipt {
	c.tb.Helper()
	var r *types.Receipt
	eventually(c.tb, "the receipt of "+tx.Hash().Hex(), func() bool {
		var err error
		r, err = c.client.TransactionReceipt(context.Background(), tx.Hash())
		return err == nil
	})
	return r
}

// noReceipt checks that tx has no receipt.
func (c *testChain) noReceipt(tx *types.Transaction) {
	c.tb.Helper()
	if r, err := c.client.TransactionReceipt(context.Background(), tx.Hash()); !errors.Is(err, ethereum.NotFound) {
		c.tb.Fatalf("receipt of %s: %+v, %v; want none", tx.Hash(), r, err)
	}
}

// call calls an ERC-20 view method at the head and returns its one result.
func (c *testChain) call(token common.Address, method string, args ...any) any {
	c.tb.Helper()
	out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: pack(c.tb, method, args...)}, nil)
	if err != nil {
		c.tb.Fatalf("%s: %v", method, err)
	}
	res, err := erc20.Unpack(method, out)
	if err != nil || len(res) != 1 {
		c.tb.Fatalf("%s: %x: %v", method, out, err)
	}
	return res[0]
}

// tokenBalance is owner's balance of token at the head.
func (c *testChain) tokenBalance(token, owner common.Address) *big.Int {
	c.tb.Helper()
	return c.call(token, "balanceOf", owner).(*big.Int)
}

// ethBalance is owner's ETH balance at the head.
func (c *testChain) ethBalance(owner common.Address) *big.Int {
	c.tb.Helper()
	b, err := c.client.BalanceAt(context.Background(), owner, nil)
	if err != nil {
		c.tb.Fatal(err)
	}
	return b
}

// head is the head block's header.
func (c *testChain) head() *types.Header {
	c.tb.Helper()
	h, err := c.client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		c.tb.Fatal(err)
	}
	return h
}

// rpcCall calls a JSON-RPC method and decodes its result into a value of type T.
func rpcCall[T any](tb testing.TB, c *rpc.Client, method string, args ...any) T {
	tb.Helper()
	var res T
	if err := c.Call(&res, method, args...); err != nil {
		tb.Fatalf("%s: %v", method, err)
	}
	return res
}

// eventually waits up to within for cond, checked every 20 ms.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("no %s within %s", what, within)
		}
	}
}
