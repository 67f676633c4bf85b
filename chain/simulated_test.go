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
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
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
				nc.HTTPHost, nc.HTTPPort, nc.HTTPModules = "127.0.0.1", port, []string{"eth", "net", "web3"}
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
func (c *simChain) commitSent(t *testing.T) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; {
		n, err := c.Client().PendingNonceAt(context.Background(), c.from)
		if err != nil {
			t.Fatal(err)
		}
		if n >= c.nonce {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("pending nonce %d, want %d", n, c.nonce)
		}
		time.Sleep(time.Millisecond)
	}
	c.Commit()
}
