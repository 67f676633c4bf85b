package devchain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

func TestRPCMethods(t *testing.T) {
	c := startChain(t, "", 0)
	client, err := rpc.Dial(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	tests := []struct {
		method string
		want   string // "": any non-empty answer
	}{
		{"eth_chainId", "0x539"},
		{"net_version", "1337"},
		{"web3_clientVersion", ""},
		{"evm_mine", "0x0"},
		{"eth_blockNumber", "0x1"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			got := rpcCall[string](t, client, tt.method)
			if got == "" || tt.want != "" && got != tt.want {
				t.Errorf("%s = %q, want %q", tt.method, got, tt.want)
			}
		})
	}
	if id, err := c.client.ChainID(context.Background()); err != nil || id.Int64() != 1337 {
		t.Errorf("ChainID = %v, %v", id, err)
	}
}

func TestEvmSnapshotAndRevert(t *testing.T) {
	c := startChain(t, "", 0)
	ctx := context.Background()
	if err := c.Mine(); err != nil {
		t.Fatal(err)
	}
	snap := c.head()
	id := rpcCall[string](t, c.rpc, "evm_snapshot")
	if id == "" {
		t.Fatal("evm_snapshot: empty id")
	}
	sender, to := account(7), freshAddress(t)
	tokens, eth := c.tokenBalance(usdt, sender), c.ethBalance(sender)
	nonce, err := c.client.NonceAt(ctx, sender, nil)
	if err != nil {
		t.Fatal(err)
	}

	tx := c.sendToken(7, usdt, "transfer", to, units(3))
	r := c.receipt(tx)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("status %d", r.Status)
	}
	for range 2 {
		rpcCall[string](t, c.rpc, "evm_mine")
	}
	dropped := c.head().Number.Uint64()
	next, err := c.client.HeaderByNumber(ctx, new(big.Int).Add(snap.Number, big.NewInt(1)))
	if err != nil || dropped < snap.Number.Uint64()+3 {
		t.Fatalf("head %d after the snapshot at %d: %v", dropped, snap.Number, err)
	}

	if !rpcCall[bool](t, c.rpc, "evm_revert", id) {
		t.Fatal("evm_revert = false")
	}
	if h := c.head(); h.Hash() != snap.Hash() {
		t.Fatalf("head %d %s after evm_revert, want %d %s", h.Number, h.Hash(), snap.Number, snap.Hash())
	}
	c.noReceipt(tx)
	if got := c.tokenBalance(usdt, sender); got.Cmp(tokens) != 0 {
		t.Errorf("sender's tokens %v, want %v", got, tokens)
	}
	if got := c.tokenBalance(usdt, to); got.Sign() != 0 {
		t.Errorf("recipient's tokens %v, want 0", got)
	}
	if got := c.ethBalance(sender); got.Cmp(eth) != 0 {
		t.Errorf("sender's ETH %v, want %v (the fee back)", got, eth)
	}
	if n, err := c.client.PendingNonceAt(ctx, sender); err != nil || n != nonce {
		t.Errorf("pending nonce %d, %v; want %d", n, err, nonce)
	}
	for _, n := range []uint64{snap.Number.Uint64() + 1, dropped} {
		if h, err := c.client.HeaderByNumber(ctx, new(big.Int).SetUint64(n)); err == nil {
			t.Errorf("block %d still canonical: %s", n, h.Hash())
		}
	}

	rpcCall[string](t, c.rpc, "evm_mine")
	h := c.head()
	if h.Number.Cmp(next.Number) != 0 || h.Hash() == next.Hash() || h.ParentHash != snap.Hash() {
		t.Errorf("block mined after evm_revert: %d %s on %s; want %d, not %s, on %s",
			h.Number, h.Hash(), h.ParentHash, next.Number, next.Hash(), snap.Hash())
	}
	// The chain goes on from there: the sender's nonce is free again.
	r = c.receipt(c.sendToken(7, usdt, "transfer", to, units(4)))
	if r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Cmp(h.Number) <= 0 {
		t.Errorf("transfer after evm_revert: status %d in block %v", r.Status, r.BlockNumber)
	}
	if got := c.tokenBalance(usdt, to); got.Cmp(units(4)) != 0 {
		t.Errorf("recipient's tokens %v, want 4e6", got)
	}

	for _, unknown := range []string{id, "0x0", "0x99"} {
		if rpcCall[bool](t, c.rpc, "evm_revert", unknown) {
			t.Errorf("evm_revert(%q) = true for a used or unknown id", unknown)
		}
	}
}

func TestEvmRevertUsesUpLaterSnapshots(t *testing.T) {
	c := startChain(t, "", 0)
	first := rpcCall[string](t, c.rpc, "evm_snapshot")
	rpcCall[string](t, c.rpc, "evm_mine")
	second := rpcCall[string](t, c.rpc, "evm_snapshot")
	rpcCall[string](t, c.rpc, "evm_mine")
	if first == second {
		t.Fatalf("two snapshots with id %s", first)
	}
	if !rpcCall[bool](t, c.rpc, "evm_revert", first) {
		t.Fatal("evm_revert(first) = false")
	}
	if n := c.head().Number.Uint64(); n != 0 {
		t.Errorf("head %d, want 0", n)
	}
	if rpcCall[bool](t, c.rpc, "evm_revert", second) {
		t.Error("evm_revert(second) = true after reverting to an earlier snapshot")
	}
}
