package devchain_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func TestReorgTo(t *testing.T) {
	for _, keep := range []bool{false, true} {
		name := map[bool]string{false: "dropping transactions", true: "keeping transactions"}[keep]
		t.Run(name, func(t *testing.T) {
			c := startChain(t, "", 0)
			ctx := context.Background()
			if err := c.Mine(); err != nil {
				t.Fatal(err)
			}
			parent := c.head()
			to := freshAddress(t)
			tx := c.sendToken(8, usdt, "transfer", to, units(9))
			before := c.receipt(tx)
			if before.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("status %d", before.Status)
			}
			if err := c.Mine(); err != nil {
				t.Fatal(err)
			}

			if err := c.ReorgTo(parent.Hash().Hex(), keep); err != nil {
				t.Fatalf("ReorgTo: %v", err)
			}
			if !keep {
				if h := c.head(); h.Hash() != parent.Hash() {
					t.Fatalf("head %d %s, want %d %s", h.Number, h.Hash(), parent.Number, parent.Hash())
				}
				for range 3 {
					if err := c.Mine(); err != nil {
						t.Fatal(err)
					}
				}
				c.noReceipt(tx)
				if got := c.tokenBalance(usdt, to); got.Sign() != 0 {
					t.Errorf("recipient's balance %v, want 0", got)
				}
				if n, err := c.client.PendingNonceAt(ctx, account(8)); err != nil || n != tx.Nonce() {
					t.Errorf("pending nonce %d, %v; want %d", n, err, tx.Nonce())
				}
			} else {
				// The chain mines the re-injected transaction by itself (block time 0).
				var after *types.Receipt
				eventually(t, "receipt in a new block", func() bool {
					r, err := c.client.TransactionReceipt(ctx, tx.Hash())
					after = r
					return err == nil && r.BlockHash != before.BlockHash
				})
				if after.Status != types.ReceiptStatusSuccessful || after.BlockNumber.Cmp(parent.Number) <= 0 {
					t.Errorf("re-mined: status %d in block %v", after.Status, after.BlockNumber)
				}
				if h, err := c.client.HeaderByNumber(ctx, after.BlockNumber); err != nil || h.Hash() != after.BlockHash {
					t.Errorf("the new block is not canonical: %v", err)
				}
				if got := c.tokenBalance(usdt, to); got.Cmp(units(9)) != 0 {
					t.Errorf("recipient's balance %v, want 9e6 (once)", got)
				}
			}
			canon, err := c.client.HeaderByNumber(ctx, before.BlockNumber)
			if err == nil && canon.Hash() == before.BlockHash {
				t.Errorf("the dropped block %s is canonical", before.BlockHash)
			}
			// The chain goes on.
			if r := c.receipt(c.send(8, to, big.NewInt(1), nil, 21_000)); r.Status != types.ReceiptStatusSuccessful {
				t.Errorf("next transfer: status %d", r.Status)
			}
		})
	}
}

func TestReorgToUnknownBlock(t *testing.T) {
	c := startChain(t, "", 0)
	if err := c.Mine(); err != nil {
		t.Fatal(err)
	}
	head := c.head()
	if err := c.ReorgTo(common.Hash{1}.Hex(), false); err == nil {
		t.Error("ReorgTo(an unknown hash) = nil")
	}
	if h := c.head(); h.Hash() != head.Hash() {
		t.Errorf("head moved to %d %s", h.Number, h.Hash())
	}
}

// TestReorgToWithTransactionsWaiting reorganises while a transaction waits in the
// pool for the next block (a block time, here one that never comes by itself).
func TestReorgToWithTransactionsWaiting(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "dropping transactions", true: "keeping transactions"}[keep], func(t *testing.T) {
			c := startChain(t, "", time.Hour)
			parent := c.head()
			to := freshAddress(t)
			mined := c.sendToken(8, usdt, "transfer", to, units(1))
			if err := c.Mine(); err != nil {
				t.Fatal(err)
			}
			if r := c.receipt(mined); r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("status %d", r.Status)
			}
			waiting := c.sendToken(8, usdt, "transfer", to, units(2))
			if err := c.ReorgTo(parent.Hash().Hex(), keep); err != nil {
				t.Fatalf("ReorgTo: %v", err)
			}
			if h := c.head(); h.Hash() != parent.Hash() {
				t.Fatalf("head %d, want %d", h.Number, parent.Number)
			}
			if err := c.Mine(); err != nil {
				t.Fatal(err)
			}
			want := units(0)
			if keep {
				c.receipt(mined)
				c.receipt(waiting)
				want = units(3)
			} else {
				c.noReceipt(mined)
				c.noReceipt(waiting)
			}
			if got := c.tokenBalance(usdt, to); got.Cmp(want) != 0 {
				t.Errorf("recipient's balance %v, want %v", got, want)
			}
		})
	}
}

// TestUnknownTransactionAnsweredAfterFirstBlock asks, on fresh chains, for a
// receipt no block holds as soon as the first Mine returns: the answer must be
// "none", never go-ethereum's "transaction indexing is in progress", which it gives
// until its indexer's first pass (started by the first block) is done. The reorg
// test above met it when it reorganised straight after its first block.
func TestUnknownTransactionAnsweredAfterFirstBlock(t *testing.T) {
	unknown := types.NewTx(&types.LegacyTx{Nonce: 1 << 40, To: &common.Address{}, Gas: 21_000, GasPrice: big.NewInt(1)})
	for range 8 {
		c := startChain(t, "", time.Hour)
		if err := c.Mine(); err != nil {
			t.Fatal(err)
		}
		c.noReceipt(unknown)
		c.close()
	}
}
