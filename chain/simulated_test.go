package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// Contracts placed in the genesis (there is no Solidity compiler here): token
// emits Transfer(caller, calldata[0:32], calldata[32:64]) as an ERC-20 does; nft
// emits the 4-topic ERC-721 Transfer; reverter always reverts.
var (
	simToken    = common.HexToAddress("0x7070707070707070707070707070707070707070")
	simNFT      = common.HexToAddress("0x7171717171717171717171717171717171717171")
	simReverter = common.HexToAddress("0x7272727272727272727272727272727272727272")
)

func logCode(nft bool) []byte {
	code := []byte{0x60, 0x20, 0x35, 0x60, 0x00, 0x52} // mstore(0, calldataload(32))
	if nft {
		code = append(code, 0x60, 0x00, 0x35) // topic 3: calldataload(0)
	}
	code = append(code, 0x60, 0x00, 0x35, 0x33, 0x7f)               // topic 2: calldataload(0); topic 1: caller
	code = append(code, common.HexToHash(TransferTopic).Bytes()...) // topic 0
	if nft {
		return append(code, 0x60, 0x00, 0x60, 0x00, 0xa4, 0x00) // log4(0, 0, ...)
	}
	return append(code, 0x60, 0x20, 0x60, 0x00, 0xa3, 0x00) // log3(0, 32, ...)
}

// simChain is a go-ethereum simulated chain serving JSON-RPC over HTTP.
type simChain struct {
	*simulated.Backend
	url   string
	key   *ecdsa.PrivateKey
	from  common.Address
	nonce uint64
	sent  []*types.Transaction // by nonce: what commitSent resends on a stall
}

func newSimChain(t *testing.T) *simChain {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	alloc := types.GenesisAlloc{
		from:        {Balance: new(big.Int).Lsh(big.NewInt(1), 80)},
		simToken:    {Code: logCode(false)},
		simNFT:      {Code: logCode(true)},
		simReverter: {Code: []byte{0x60, 0x00, 0x60, 0x00, 0xfd}},
	}
	for attempt := 1; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0") // the node cannot tell its port: pick one
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		sim, err := func() (sim *simulated.Backend, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("simulated backend: %v", r)
				}
			}()
			return simulated.NewBackend(alloc, func(nc *node.Config, _ *ethconfig.Config) {
				nc.HTTPHost, nc.HTTPPort, nc.HTTPModules = "127.0.0.1", port, []string{"eth", "net", "web3", "txpool"}
			}), nil
		}()
		if err == nil {
			t.Cleanup(func() { sim.Close() })
			return &simChain{Backend: sim, url: fmt.Sprintf("http://127.0.0.1:%d", port), key: key, from: from}
		}
		if attempt == 3 {
			t.Fatal(err)
		}
	}
}

// send signs and sends a transaction (to nil: a contract creation).
func (c *simChain) send(t *testing.T, to *common.Address, value int64, data []byte) common.Hash {
	t.Helper()
	tx, err := types.SignNewTx(c.key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: c.nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9),
		Gas: 500_000, To: to, Value: big.NewInt(value), Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client().SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	c.sent = append(c.sent, tx)
	c.nonce++
	return tx.Hash()
}

// transferData is the token's calldata: recipient, amount.
func transferData(to common.Address, amount int64) []byte {
	return append(common.BytesToHash(to[:]).Bytes(), common.BigToHash(big.NewInt(amount)).Bytes()...)
}

// simTxs is what TestSimulatedChain mined.
type simTxs struct {
	native, token1, token2, nft, create, revert common.Hash
	alice, bob                                  common.Address
}

// mine mines block 1 (a native transfer), block 2 (two token transfers) and
// block 3 (an ERC-721-shaped log, a contract creation, a reverted call).
func (c *simChain) mine(t *testing.T) simTxs {
	t.Helper()
	s := simTxs{alice: common.HexToAddress("0xa11ce00000000000000000000000000000000001"),
		bob: common.HexToAddress("0xb0b0000000000000000000000000000000000002")}
	s.native = c.send(t, &s.alice, 1e18, nil)
	c.commitSent(t)
	s.token1 = c.send(t, &simToken, 0, transferData(s.alice, 5_000_000))
	s.token2 = c.send(t, &simToken, 0, transferData(s.bob, 7_000_000))
	c.commitSent(t)
	s.nft = c.send(t, &simNFT, 0, transferData(s.alice, 42))
	s.create = c.send(t, nil, 0, nil)
	s.revert = c.send(t, &simReverter, 0, nil)
	c.commitSent(t)
	return s
}

// commitSent mines a block once every transaction sent so far is pending: the
// simulated backend's pool takes a sent transaction in asynchronously, and on a
// loaded machine a Commit right after SendTransaction mined a block without it.
// Once (under the race detector, with every package testing at once) two sent
// transactions never became pending: a stall of a second resends the missing
// ones, as a wallet rebroadcasts, and the pool's view is logged.
func (c *simChain) commitSent(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	for resend := start.Add(time.Second); ; time.Sleep(time.Millisecond) {
		n, err := c.Client().PendingNonceAt(ctx, c.from)
		if err != nil {
			t.Fatal(err)
		}
		if n >= c.nonce {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("pending nonce %d, want %d; pool: %s", n, c.nonce, c.poolStatus())
		}
		if time.Now().After(resend) {
			t.Logf("pending nonce %d, want %d after %v; resending; pool: %s", n, c.nonce, time.Since(start), c.poolStatus())
			for _, tx := range c.sent[n:] {
				if err := c.Client().SendTransaction(ctx, tx); err != nil {
					t.Logf("resend nonce %d: %v", tx.Nonce(), err)
				}
			}
			resend = time.Now().Add(time.Second)
		}
	}
	c.Commit()
	c.awaitPoolReset(t)
}

// awaitPoolReset waits until the pool has taken in the block just mined: it
// holds no transaction once its reset for the new head has dropped the mined
// ones. Transactions sent while that reset still ran could stay queued for ever
// (go-ethereum's reset promotes queued transactions before it sets the account's
// pending nonce from those already pending): in CI a block's three transactions
// ended as one pending and two queued, pending nonce 4 of 6, for 30 s.
func (c *simChain) awaitPoolReset(t *testing.T) {
	t.Helper()
	rc, err := rpc.Dial(c.url)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	for start := time.Now(); ; time.Sleep(2 * time.Millisecond) {
		var status struct{ Pending, Queued hexutil.Uint }
		if err := rc.Call(&status, "txpool_status"); err != nil {
			t.Fatal(err)
		}
		if status.Pending == 0 && status.Queued == 0 {
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the pool still holds %d pending and %d queued transactions after a block", status.Pending, status.Queued)
		}
	}
}

// poolStatus is the pool's pending and queued counts, for a failure message.
func (c *simChain) poolStatus() string {
	rc, err := rpc.Dial(c.url)
	if err != nil {
		return err.Error()
	}
	defer rc.Close()
	var status map[string]any
	if err := rc.Call(&status, "txpool_status"); err != nil {
		return err.Error()
	}
	return fmt.Sprint(status)
}
