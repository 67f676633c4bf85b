package devchain_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/kassapay/kassa/devchain"
)

func TestBlockTimeZeroMinesTransactionsAndOnEvmMine(t *testing.T) {
	c := startChain(t, "", 0)
	start := c.head().Number.Uint64()
	to := freshAddress(t)
	tx := c.send(0, to, big.NewInt(1e15), nil, 21_000)
	r := c.receipt(tx)
	if r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() <= start {
		t.Fatalf("receipt: status %d in block %v (head was %d)", r.Status, r.BlockNumber, start)
	}
	if b := c.ethBalance(to); b.Cmp(big.NewInt(1e15)) != 0 {
		t.Errorf("recipient has %v wei", b)
	}
	for i := range 3 {
		before := c.head()
		if got := rpcCall[string](t, c.rpc, "evm_mine"); got != "0x0" {
			t.Errorf("evm_mine = %q, want 0x0", got)
		}
		block, err := c.client.BlockByNumber(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if block.NumberU64() != before.Number.Uint64()+1 || block.ParentHash() != before.Hash() || len(block.Transactions()) != 0 {
			t.Errorf("evm_mine %d: block %d with %d transactions on %s; want %d, empty, on %s", i, block.NumberU64(),
				len(block.Transactions()), block.ParentHash(), before.Number.Uint64()+1, before.Hash())
		}
		if block.Time() <= before.Time {
			t.Errorf("evm_mine %d: timestamp %d after %d", i, block.Time(), before.Time)
		}
	}
	if err := c.Mine(); err != nil {
		t.Errorf("Mine: %v", err)
	}
}

func TestBlockTimeMinesEmptyBlocks(t *testing.T) {
	c := startChain(t, "", time.Second)
	start := c.head().Number.Uint64()
	eventually(t, "two more blocks", func() bool { return c.head().Number.Uint64() >= start+2 })
	for n := start + 1; n <= start+2; n++ {
		b, err := c.client.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Transactions()) != 0 {
			t.Errorf("block %d has %d transactions", n, len(b.Transactions()))
		}
	}
	// A transaction waits for the next tick and is mined then.
	if r := c.receipt(c.send(1, freshAddress(t), big.NewInt(1), nil, 21_000)); r.Status != types.ReceiptStatusSuccessful {
		t.Errorf("status %d", r.Status)
	}
}

func TestTwoChainsInOneProcess(t *testing.T) {
	a, b := startChain(t, "", 0), startChain(t, "", 0)
	if a.URL() == b.URL() {
		t.Fatalf("both chains at %s", a.URL())
	}
	to := freshAddress(t)
	tx := a.sendToken(0, usdt, "transfer", to, units(7))
	ra := a.receipt(tx)
	if ra.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("status %d on the first chain", ra.Status)
	}
	for range 3 {
		if err := b.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	ha, hb := a.head(), b.head()
	if ha.Number.Cmp(ra.BlockNumber) != 0 || hb.Number.Uint64() != 3 {
		t.Errorf("heads %d and %d, want %d and 3", ha.Number, hb.Number, ra.BlockNumber)
	}
	b.noReceipt(tx)
	if got := a.tokenBalance(usdt, to); got.Cmp(units(7)) != 0 {
		t.Errorf("first chain: %v", got)
	}
	if got := b.tokenBalance(usdt, to); got.Sign() != 0 {
		t.Errorf("second chain: %v", got)
	}
	// The same transaction is new to the second chain.
	if err := b.client.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	if r := b.receipt(tx); r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() <= 3 {
		t.Errorf("second chain: status %d in block %v", r.Status, r.BlockNumber)
	}
	a.close()
	if r := b.receipt(b.send(0, to, big.NewInt(1), nil, 21_000)); r.Status != types.ReceiptStatusSuccessful {
		t.Errorf("second chain after the first closed: status %d", r.Status)
	}
}

// TestBlockTimeZeroMinesABurst sends many transactions at once from every
// account: all are mined, none is lost, and the chain does not stall.
func TestBlockTimeZeroMinesABurst(t *testing.T) {
	c := startChain(t, "", 0)
	const each = 8
	to := freshAddress(t)
	var txs []*types.Transaction
	for from := range devchain.Accounts() {
		for n := range uint64(each) {
			txs = append(txs, signed(t, from, n, usdt, new(big.Int), pack(t, "transfer", to, big.NewInt(1)), 100_000))
		}
	}
	// A deadlock of the pool shows as a send that never returns.
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(txs))
	for from := range devchain.Accounts() {
		wg.Go(func() {
			for _, tx := range txs[from*each : (from+1)*each] {
				if err := c.client.SendTransaction(ctx, tx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("send: %v", err)
	}
	for _, tx := range txs {
		if r := c.receipt(tx); r.Status != types.ReceiptStatusSuccessful {
			t.Errorf("%s: status %d", tx.Hash(), r.Status)
		}
	}
	if got := c.tokenBalance(usdt, to); got.Int64() != int64(len(txs)) {
		t.Errorf("recipient has %v units, want %d", got, len(txs))
	}
}
