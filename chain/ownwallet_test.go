package chain_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundOwnWalletOnDevChain: with a dry gas wallet a refund waits pending
// with the reason; the merchant chooses to pay it from their own wallet, and a
// transfer signed with go-ethereum from another funded dev account to the
// refund's address (USDT of more than the amount; the native coin of exactly
// it) makes it sent, then confirmed with that transaction, and the invoice's
// amount_refunded grows. Funding the gas wallet afterwards pays nothing more:
// Kassa never pays it twice. Both engines.
func TestRefundOwnWalletOnDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, false)
		svc := &refund.Service{Store: p.db, Payments: p.db, Registry: p.reg}
		pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
		usdtAddr := p.tokenAddress(t, usdt)

		inv, a1 := p.invoice(t, 10_000, usdt)
		native, a2 := p.invoice(t, 10_000, eth)
		p.d.send(t, 0, usdtAddr, a1, dollars(10))
		p.d.send(t, 1, "", a2, big.NewInt(5_000_000_000_000_000)) // 0.005 ETH at 2,000 USD
		p.until(t, 30, "paid", func() bool {
			s1, _ := p.state(t, inv)
			s2, _ := p.state(t, native)
			return s1 == kassa.StatusPaid && s2 == kassa.StatusPaid
		})

		buyer, buyer2 := newAddress(t), newAddress(t)
		four := kassa.Millis(4_000)
		r, err := svc.Create(p.ctx, pr, inv.ID, refund.Create{AmountUSD: &four, Address: buyer, Reason: "returned"})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := svc.Create(p.ctx, pr, native.ID, refund.Create{Address: buyer2})
		if err != nil {
			t.Fatal(err)
		}
		p.until(t, 20, "waiting with the reason", func() bool {
			a, b := p.refundState(t, r.ID), p.refundState(t, r2.ID)
			return a.Status == kassa.RefundPending && a.FailureReason != "" && b.Status == kassa.RefundPending && b.FailureReason != ""
		})
		for _, id := range []string{r.ID, r2.ID} {
			got, err := svc.PayFromOwnWallet(p.ctx, pr, id)
			if err != nil || got.OwnWallet == nil || got.FailureReason != kassa.OwnWalletWaiting {
				t.Fatalf("own wallet: %+v %v", got, err)
			}
		}

		// More than asked in USDT (the payor is not short), exactly the amount in ETH.
		paid := p.d.send(t, 5, usdtAddr, buyer, new(big.Int).Add(r.AmountUnits, big.NewInt(1)))
		paid2 := p.d.send(t, 6, "", buyer2, r2.AmountUnits)
		p.until(t, 20, "confirmed", func() bool {
			return p.refundState(t, r.ID).Status == kassa.RefundConfirmed && p.refundState(t, r2.ID).Status == kassa.RefundConfirmed
		})
		for _, c := range []struct {
			r    *kassa.Refund
			inv  *kassa.Invoice
			hash string
			usd  kassa.Millis
		}{{r, inv, paid, 4_000}, {r2, native, paid2, 10_000}} {
			got := p.refundState(t, c.r.ID)
			if !strings.EqualFold(got.TxHash, c.hash) || got.SentAt == nil || got.ConfirmedAt == nil {
				t.Fatalf("refund %s: tx %s, want %s", got.ID, got.TxHash, c.hash)
			}
			after, err := p.db.Invoice(p.ctx, p.m.ID, c.inv.ID)
			if err != nil || after.AmountRefunded != c.usd {
				t.Fatalf("amount_refunded %d, want %d (%v)", after.AmountRefunded, c.usd, err)
			}
			var statuses []string
			evs, _, err := p.db.Events(p.ctx, kassa.EventFilter{MerchantID: p.m.ID, Environment: kassa.Devnet,
				Scope: kassa.ScopeMerchant, ObjectIDs: []string{c.r.ID}, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for i := len(evs) - 1; i >= 0; i-- {
				for _, s := range []string{"pending", "sent", "confirmed"} {
					if strings.Contains(string(evs[i].Data), `"status":"`+s+`"`) && (len(statuses) == 0 || statuses[len(statuses)-1] != s) {
						statuses = append(statuses, s)
					}
				}
			}
			if strings.Join(statuses, ",") != "pending,sent,confirmed" {
				t.Fatalf("refund %s went %v", got.ID, statuses)
			}
		}

		// Kassa, funded now, pays neither again.
		p.fund(t)
		for range 8 {
			p.step(t)
		}
		p.wantBalance(t, usdt, buyer, new(big.Int).Add(r.AmountUnits, big.NewInt(1)))
		p.wantBalance(t, eth, buyer2, r2.AmountUnits)
	})
}

// TestRefundOwnWalletStandardERC20: a refund in OpenZeppelin's ERC-20, which
// the gas wallet holds none of, waits with the reason; paid from the merchant's
// own wallet (another account holding it, exactly the amount), it is confirmed
// with that transfer. Both engines.
func TestRefundOwnWalletStandardERC20(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := withStandardERC20(t, cfg)
		svc := &refund.Service{Store: p.db, Payments: p.db, Registry: p.reg}
		pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
		token := p.tokenAddress(t, ozt)
		inv, addr := p.invoice(t, 10_000, ozt)
		p.d.send(t, 7, token, addr, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)))
		p.until(t, 30, "paid", func() bool {
			s, _ := p.state(t, inv)
			return s == kassa.StatusPaid
		})
		buyer := newAddress(t)
		three := kassa.Millis(3_000)
		r, err := svc.Create(p.ctx, pr, inv.ID, refund.Create{AmountUSD: &three, Address: buyer})
		if err != nil {
			t.Fatal(err)
		}
		p.until(t, 20, "waiting with the reason", func() bool {
			got := p.refundState(t, r.ID)
			return got.Status == kassa.RefundPending && got.FailureReason != ""
		})
		if _, err := svc.PayFromOwnWallet(p.ctx, pr, r.ID); err != nil {
			t.Fatal(err)
		}
		hash := p.d.send(t, 7, token, buyer, r.AmountUnits)
		p.until(t, 20, "confirmed", func() bool { return p.refundState(t, r.ID).Status == kassa.RefundConfirmed })
		if got := p.refundState(t, r.ID); !strings.EqualFold(got.TxHash, hash) {
			t.Fatalf("tx %s, want %s", got.TxHash, hash)
		}
		if after, _ := p.db.Invoice(p.ctx, p.m.ID, inv.ID); after.AmountRefunded != 3_000 {
			t.Fatalf("amount_refunded %d", after.AmountRefunded)
		}
		p.wantBalance(t, ozt, buyer, r.AmountUnits)
	})
}

// TestRefundOwnWalletReorgOnDevChain: a refund confirmed by the merchant's own
// transfer goes back to pending, out of the invoice's amount_refunded, when a
// reorganisation drops the transfer's block and transaction; the merchant's
// transfer sent again confirms it again, with the new transaction. Both engines.
func TestRefundOwnWalletReorgOnDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, false)
		svc := &refund.Service{Store: p.db, Payments: p.db, Registry: p.reg}
		pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
		usdtAddr := p.tokenAddress(t, usdt)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, addr, dollars(10))
		p.until(t, 30, "paid", func() bool { s, _ := p.state(t, inv); return s == kassa.StatusPaid })
		buyer := newAddress(t)
		r, err := svc.Create(p.ctx, pr, inv.ID, refund.Create{Address: buyer})
		if err != nil {
			t.Fatal(err)
		}
		p.until(t, 20, "waiting with the reason", func() bool { return p.refundState(t, r.ID).FailureReason != "" })
		if _, err := svc.PayFromOwnWallet(p.ctx, pr, r.ID); err != nil {
			t.Fatal(err)
		}
		first := p.d.send(t, 5, usdtAddr, buyer, r.AmountUnits)
		p.until(t, 20, "confirmed", func() bool { return p.refundState(t, r.ID).Status == kassa.RefundConfirmed })
		tx, err := p.d.pool(t).Node().Transaction(p.ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		old := p.d.head(t)
		p.d.reorgTo(t, tx.Block.Number-1, false) // the transfer's block and the transfer are gone
		for p.d.head(t) <= old {
			if err := p.d.Mine(); err != nil {
				t.Fatal(err)
			}
		}
		p.sync(t)
		got := p.refundState(t, r.ID)
		if got.Status != kassa.RefundPending || got.TxHash != "" || !strings.Contains(got.FailureReason, "reorganisation") {
			t.Fatalf("after the reorganisation: %s %q %q", got.Status, got.TxHash, got.FailureReason)
		}
		if after, _ := p.db.Invoice(p.ctx, p.m.ID, inv.ID); after.AmountRefunded != 0 {
			t.Fatalf("amount_refunded %d after the reorganisation", after.AmountRefunded)
		}
		again := p.d.send(t, 6, usdtAddr, buyer, r.AmountUnits)
		p.until(t, 20, "confirmed again", func() bool { return p.refundState(t, r.ID).Status == kassa.RefundConfirmed })
		if got := p.refundState(t, r.ID); !strings.EqualFold(got.TxHash, again) {
			t.Fatalf("tx %s, want %s", got.TxHash, again)
		}
		if after, _ := p.db.Invoice(p.ctx, p.m.ID, inv.ID); after.AmountRefunded != 10_000 {
			t.Fatalf("amount_refunded %d", after.AmountRefunded)
		}
	})
}
