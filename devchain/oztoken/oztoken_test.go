package oztoken_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/devchain/oztoken"
)

// TestDeployOnDevChain: the token deploys on the dev chain with its supply at the
// owner, moves with transfer like any ERC-20, and, unlike the dev chain's own
// tokens, a transfer from an address that holds none of it reverts, so a node
// refuses to estimate it. It logs the gas a transfer really costs (the figures
// in docs/decisions.md).
func TestDeployOnDevChain(t *testing.T) {
	ctx := context.Background()
	c, err := devchain.Start(devchain.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cl, err := ethclient.Dial(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	deployer, owner := key(t, 8), key(t, 7)
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	addr, err := oztoken.Deploy(ctx, c.URL(), deployer, "OpenZeppelin Token", "OZT", supply, address(owner).Hex())
	if err != nil {
		t.Fatal(err)
	}
	token := common.HexToAddress(addr)
	if got := balanceOf(t, cl, token, address(owner)); got.Cmp(supply) != 0 {
		t.Fatalf("owner holds %s, want %s", got, supply)
	}

	fresh, other := newAddress(t), newAddress(t)
	if _, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: fresh, To: &token, Data: transfer(other, big.NewInt(1))}); err == nil {
		t.Fatal("the node estimated a transfer from an address that holds none of the token")
	}
	one := big.NewInt(1e18)
	first := send(t, cl, owner, token, transfer(fresh, one))  // to an address with no balance yet
	second := send(t, cl, owner, token, transfer(fresh, one)) // to an address that holds some
	if got := balanceOf(t, cl, token, fresh); got.Cmp(new(big.Int).Mul(one, big.NewInt(2))) != 0 {
		t.Fatalf("recipient holds %s, want 2 tokens", got)
	}
	t.Logf("OZ ERC20PresetFixedSupply transfer gas: to a fresh address %d, to a holder %d", first, second)
}

func key(t *testing.T, i int) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(devchain.Accounts()[i].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func address(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func newAddress(t *testing.T) common.Address {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return address(k)
}

// transfer is the calldata of transfer(to, amount).
func transfer(to common.Address, amount *big.Int) []byte {
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(to.Bytes(), 32)...)
	return append(data, common.LeftPadBytes(amount.Bytes(), 32)...)
}

func balanceOf(t *testing.T, cl *ethclient.Client, token, owner common.Address) *big.Int {
	t.Helper()
	data := append([]byte{0x70, 0xa0, 0x82, 0x31}, common.LeftPadBytes(owner.Bytes(), 32)...)
	out, err := cl.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// send signs and sends a call of data to to from k, waits until it is mined
// and returns the gas it used.
func send(t *testing.T, cl *ethclient.Client, k *ecdsa.PrivateKey, to common.Address, data []byte) uint64 {
	t.Helper()
	ctx := context.Background()
	from := address(k)
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := big.NewInt(devchain.ChainID)
	tip := big.NewInt(1e9)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: gas, To: &to, Data: data}),
		types.LatestSignerForChainID(id), k)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if r, err := cl.TransactionReceipt(ctx, tx.Hash()); err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s reverted", tx.Hash())
			}
			return r.GasUsed
		}
	}
	t.Fatalf("transaction %s not mined", tx.Hash())
	return 0
}
