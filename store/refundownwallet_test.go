package store_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// ownRefund creates a refund of usd on a paid invoice of its own, to refundAddress.
func (f *fixture) ownRefund(t *testing.T, usd kassa.Millis) (*kassa.Invoice, *kassa.Refund) {
	t.Helper()
	f.clock.Advance(time.Second) // made one after the other
	inv := f.invoice(t, f.m, 1000, nil)
	f.pay(t, inv, "0x"+strings.ReplaceAll(kassa.NewUUID(), "-", ""), 1000, true)
	r, err := createRefund(f, principal(f.m), inv.ID, refundReq(ptr(usd), refundAddress, ""))
	must(t, err)
	return inv, r
}

// openPayout reports whether payout id is still open (queued, funding or sending).
func (f *fixture) openPayout(t *testing.T, id string) bool {
	t.Helper()
	open, err := f.db.OpenPayouts(f.ctx, kassa.Devnet, "bsc-testnet")
	must(t, err)
	for _, p := range open {
		if p.ID == id {
			return true
		}
	}
	return false
}

// TestRefundOwnWalletChoice: the merchant takes a pending refund over while its
// payout is unsigned (queued, or funding its gas), which withdraws the payout for
// good (the sender can no longer sign it, the queue skips the refund) and watches
// from the block after the cursor; once Kassa signed the transfer it is 409
// refund_being_sent; a refund without its address is 409 refund_not_pending;
// handing it back to Kassa queues its payout again. Both engines.
func TestRefundOwnWalletChoice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		must(t, f.db.AdvanceChain(f.ctx, "bsc-testnet", "0xg", []kassa.BlockRef{{Number: 41, Hash: "0xb41", Parent: "0xb40"}}, 10))

		_, queued := f.ownRefund(t, 400)
		po := f.refundPayout(t, queued.ID)
		got, err := payFromOwnWallet(f, p, queued.ID)
		must(t, err)
		if got.OwnWallet == nil || got.OwnWallet.WatchFrom != 42 || got.Status != kassa.RefundPending || got.FailureReason != kassa.OwnWalletWaiting {
			t.Fatalf("chosen: %+v %s %q", got.OwnWallet, got.Status, got.FailureReason)
		}
		if want := []string{"refund.updated"}; fmt.Sprint(f.eventTypes(t, 1)) != fmt.Sprint(want) {
			t.Fatalf("events %v", f.eventTypes(t, 1))
		}
		if f.openPayout(t, po.ID) {
			t.Fatal("the withdrawn payout is still open")
		}
		if n, err := f.db.QueueRefunds(f.ctx, kassa.Devnet, "bsc-testnet", refundGas, nil); err != nil || n != 0 {
			t.Fatalf("queued again: %d %v", n, err)
		}
		_, err = f.db.AddTx(f.ctx, &outbox.Tx{Environment: kassa.Devnet, Network: po.Network, From: po.From,
			Purpose: outbox.TxTransfer, PayoutID: po.ID, PayoutAmount: po.Amount, To: po.To, Value: new(big.Int), GasLimit: 60_000}, 0,
			func(uint64) (outbox.Attempt, error) {
				return outbox.Attempt{Hash: "0xsigned", Raw: []byte{1}, Tip: big.NewInt(1), FeeCap: big.NewInt(2)}, nil
			})
		wantErr(t, err, kassa.KindConflict, "payout_changed") // a sender that read it before cannot sign it
		if again, err := payFromOwnWallet(f, p, queued.ID); err != nil || again.OwnWallet.WatchFrom != 42 {
			t.Fatalf("chosen twice: %v", err)
		}
		// A sender that planned it before still reports the wallet short: the
		// withdrawn payout and the refund keep what they say.
		must(t, f.db.WaitPayout(f.ctx, po.ID, "the gas wallet holds 0 USDT"))
		if got := f.refundStatus(t, queued.ID); got.FailureReason != kassa.OwnWalletWaiting || f.openPayout(t, po.ID) {
			t.Fatalf("after a late wait: %q, payout open %v", got.FailureReason, f.openPayout(t, po.ID))
		}

		back, err := letKassaPay(f, p, queued.ID)
		must(t, err)
		if back.OwnWallet != nil || back.FailureReason != "" || !f.openPayout(t, po.ID) {
			t.Fatalf("handed back: %+v %q, payout open %v", back.OwnWallet, back.FailureReason, f.openPayout(t, po.ID))
		}
		if got := f.refundStatus(t, queued.ID); got.OwnWallet != nil {
			t.Fatalf("read back: %+v", got.OwnWallet)
		}

		// Funding: only the gas top-up is signed; the transfer is not.
		_, funding := f.ownRefund(t, 300)
		fpo := f.refundPayout(t, funding.ID)
		f.addTx(t, fpo, outbox.TxTopup, 0)
		if _, err := payFromOwnWallet(f, p, funding.ID); err != nil {
			t.Fatalf("funding: %v", err)
		}
		if f.openPayout(t, fpo.ID) {
			t.Fatal("the funding payout is still open")
		}
		// Canceling a refund the merchant took over (its payout failed already).
		if c, err := (&refund.Service{Store: f.db}).Cancel(f.ctx, p, funding.ID); err != nil || c.Status != kassa.RefundCanceled {
			t.Fatalf("cancel: %v", err)
		}

		// Signed: Kassa's transfer may be on its way.
		_, signed := f.ownRefund(t, 200)
		f.addTx(t, f.refundPayout(t, signed.ID), outbox.TxTransfer, 0)
		_, err = payFromOwnWallet(f, p, signed.ID)
		wantErr(t, err, kassa.KindConflict, "refund_being_sent")

		// No address yet.
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0x"+fmt.Sprintf("%064x", 77), 1000, true)
		claim, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), "", "tok"))
		must(t, err)
		_, err = payFromOwnWallet(f, p, claim.ID)
		wantErr(t, err, kassa.KindConflict, "refund_not_pending")

		// Another environment's principal does not find it.
		other := p
		other.Environment = kassa.Mainnet
		_, err = payFromOwnWallet(f, other, queued.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

// transfer is a transfer of units to refundAddress in block n.
func transfer(hash string, index int64, n uint64, units *big.Int) kassa.Transfer {
	return kassa.Transfer{Network: "bsc-testnet", TxHash: hash, LogIndex: index, TokenAddress: "0xtoken",
		Block: kassa.BlockRef{Number: n, Hash: fmt.Sprintf("0xb%d", n)}, From: "0x1111111111111111111111111111111111111111",
		To: "0x52908400098527886e0f7030069857d2e4169ee7", Amount: units}
}

// TestRefundOwnWalletRecognition: the merchant's transfer of at least the
// refund's amount, in its token, to its address, from the block watched on,
// marks it sent (one refund per transfer: the same transaction and log twice pay
// one; two refunds of the same amount need two transfers; Kassa's own signed
// transfer pays none; one too small is noted and ignored), confirmed with the
// network's confirmations (amount_refunded, invoice.updated), and a
// reorganisation that takes the block back makes it pending again until the
// transfer is seen anew. Handing it back to Kassa is refused once seen. Both
// engines.
func TestRefundOwnWalletRecognition(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		must(t, f.db.AdvanceChain(f.ctx, "bsc-testnet", "0xg", []kassa.BlockRef{{Number: 9, Hash: "0xb9", Parent: "0xb8"}}, 100))
		invA, a := f.ownRefund(t, 400)
		invB, b := f.ownRefund(t, 400)
		for _, r := range []*kassa.Refund{a, b} {
			_, err := payFromOwnWallet(f, p, r.ID)
			must(t, err)
		}
		units := a.AmountUnits
		more := new(big.Int).Add(units, big.NewInt(5))
		less := new(big.Int).Sub(units, big.NewInt(1))
		const tok = 1
		steps := []struct {
			name string
			t    kassa.Transfer
			tok  int64
			want string // the refund it pays, "" none
		}{
			{"before the block watched from", transfer("0xaa01", 0, 9, units), tok, ""},
			{"another token", transfer("0xaa02", 0, 10, units), 2, ""},
			{"too small", transfer("0xaa03", 0, 10, less), tok, ""},
			{"more than asked pays the oldest", transfer("0xaa04", 3, 11, more), tok, a.ID},
			{"the same log again pays nothing more", transfer("0xaa04", 3, 11, more), tok, ""},
			{"another log of the same transaction", transfer("0xaa04", 4, 11, units), tok, b.ID},
			{"nothing left to pay", transfer("0xaa05", 0, 12, units), tok, ""},
		}
		for _, s := range steps {
			got, err := f.db.RecordOwnWalletTransfer(f.ctx, kassa.Devnet, s.tok, s.t)
			must(t, err)
			if id := ""; got != nil {
				id = got.ID
				if id != s.want || got.Status != kassa.RefundSent || got.TxHash != s.t.TxHash || got.SentAt == nil {
					t.Fatalf("%s: paid %s (%s %s), want %q", s.name, id, got.Status, got.TxHash, s.want)
				}
			} else if s.want != "" {
				t.Fatalf("%s: paid nothing, want %s", s.name, s.want)
			}
			if s.name == "too small" {
				if r := f.refundStatus(t, a.ID); r.Status != kassa.RefundPending || r.FailureReason == kassa.OwnWalletWaiting {
					t.Fatalf("too small: %s %q", r.Status, r.FailureReason)
				}
			}
		}
		_, err := letKassaPay(f, p, a.ID)
		wantErr(t, err, kassa.KindConflict, "refund_being_sent")

		// Confirmations: b's block 11 has 3 at head 13.
		if n, err := f.db.ConfirmOwnWalletRefunds(f.ctx, kassa.Devnet, "bsc-testnet", 12, 3); err != nil || n != 0 {
			t.Fatalf("early: %d %v", n, err)
		}
		if n, err := f.db.ConfirmOwnWalletRefunds(f.ctx, kassa.Devnet, "bsc-testnet", 13, 3); err != nil || n != 2 {
			t.Fatalf("confirmed %d %v", n, err)
		}
		for _, c := range []struct {
			r   *kassa.Refund
			inv *kassa.Invoice
		}{{a, invA}, {b, invB}} {
			if got := f.refundStatus(t, c.r.ID); got.Status != kassa.RefundConfirmed || got.ConfirmedAt == nil {
				t.Fatalf("%s: %s", c.r.ID, got.Status)
			}
			if inv, err := f.db.Invoice(f.ctx, f.m.ID, c.inv.ID); err != nil || inv.AmountRefunded != 400 {
				t.Fatalf("amount_refunded %d %v", inv.AmountRefunded, err)
			}
		}
		if want := []string{"refund.updated", "invoice.updated"}; fmt.Sprint(f.eventTypes(t, 2)) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", f.eventTypes(t, 2), want)
		}

		// A reorganisation back to block 10: both transfers' block left.
		must(t, f.db.AdvanceChain(f.ctx, "bsc-testnet", "0xg", []kassa.BlockRef{{Number: 10, Hash: "0xb10", Parent: "0xb9"},
			{Number: 11, Hash: "0xb11", Parent: "0xb10"}}, 100))
		if _, err := f.db.RewindChain(f.ctx, "bsc-testnet", kassa.BlockRef{Number: 10, Hash: "0xb10", Parent: "0xb9"}); err != nil {
			t.Fatal(err)
		}
		got := f.refundStatus(t, a.ID)
		if got.Status != kassa.RefundPending || got.TxHash != "" || got.OwnWallet == nil || got.OwnWallet.Seen != nil {
			t.Fatalf("after the reorganisation: %s %q %+v", got.Status, got.TxHash, got.OwnWallet)
		}
		if inv, _ := f.db.Invoice(f.ctx, f.m.ID, invA.ID); inv.AmountRefunded != 0 {
			t.Fatalf("amount_refunded %d after the reorganisation", inv.AmountRefunded)
		}
		// The transaction mined again in another block pays it again.
		again := transfer("0xaa04", 3, 11, more)
		again.Block.Hash = "0xc11"
		if r, err := f.db.RecordOwnWalletTransfer(f.ctx, kassa.Devnet, tok, again); err != nil || r == nil || r.ID != a.ID {
			t.Fatalf("seen again: %v %v", r, err)
		}

		// Kassa's own signed transfer to the same address pays no refund.
		_, c := f.ownRefund(t, 100)
		cp := f.refundPayout(t, c.ID)
		kassaTx := f.addTx(t, cp, outbox.TxTransfer, 0)
		_, d := f.ownRefund(t, 100)
		_, err = payFromOwnWallet(f, p, d.ID)
		must(t, err)
		if r, err := f.db.RecordOwnWalletTransfer(f.ctx, kassa.Devnet, tok, transfer(kassaTx.Latest().Hash, 0, 14, c.AmountUnits)); err != nil || r != nil {
			t.Fatalf("Kassa's own transfer paid %v (%v)", r, err)
		}
	})
}
