package store_test

import (
	"fmt"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

const refundGas = "0x9999999999999999999999999999999999999999"

// refundPayout queues the network's refund payouts and returns the one of refund id.
func (f *fixture) refundPayout(t *testing.T, id string) *outbox.Payout {
	t.Helper()
	_, err := f.db.QueueRefunds(f.ctx, kassa.Devnet, "bsc-testnet", refundGas, nil)
	must(t, err)
	open, err := f.db.OpenPayouts(f.ctx, kassa.Devnet, "bsc-testnet")
	must(t, err)
	for _, p := range open {
		if p.RefundID == id {
			return p
		}
	}
	t.Fatalf("no payout for refund %s in %d open", id, len(open))
	return nil
}

func (f *fixture) refundStatus(t *testing.T, id string) *kassa.Refund {
	t.Helper()
	r, err := f.db.Refund(f.ctx, principal(f.m), id)
	must(t, err)
	return r
}

// TestRefundPayouts: a pending refund becomes one payout (from the gas wallet for
// confirmed money, from the deposit address for a set-aside payment still
// there), sent when its transfer is stored, confirmed with the transfer
// (amount_refunded on the invoice, the payment resolved as refunded), back to
// sent when a reorganisation takes the block, pending again when a transfer
// reverts and failed when the payout gives up; cancel refuses once signed.
// Both engines.
func TestRefundPayouts(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xd1", 1000, true)
		r, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(400)), refundAddress, ""))
		must(t, err)
		po := f.refundPayout(t, r.ID)
		if po.From != refundGas || po.FromIndex != outbox.GasWalletIndex || po.Amount.Cmp(r.AmountUnits) != 0 || po.To != refundAddress {
			t.Fatalf("payout %+v", po)
		}
		if n, err := f.db.QueueRefunds(f.ctx, kassa.Devnet, "bsc-testnet", refundGas, nil); err != nil || n != 0 {
			t.Fatalf("queued again: %d %v", n, err)
		}
		tx := f.addTx(t, po, outbox.TxTransfer, 0)
		if got := f.refundStatus(t, r.ID); got.Status != kassa.RefundSent || got.TxHash != tx.Latest().Hash || got.SentAt == nil {
			t.Fatalf("after signing: %s %s", got.Status, got.TxHash)
		}
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, p, r.ID)
		wantErr(t, err, kassa.KindConflict, "refund_not_cancelable")
		block := kassa.BlockRef{Number: 10, Hash: "0xb10"}
		must(t, f.db.RecordTx(f.ctx, tx.ID, outbox.Outcome{Status: outbox.TxConfirmed, MinedHash: tx.Latest().Hash, Block: block}))
		got := f.refundStatus(t, r.ID)
		if got.Status != kassa.RefundConfirmed || got.ConfirmedAt == nil {
			t.Fatalf("after confirmation: %s", got.Status)
		}
		if after, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID); err != nil || after.AmountRefunded != 400 {
			t.Fatalf("amount_refunded %d (%v)", after.AmountRefunded, err)
		}
		must(t, f.db.RecordTx(f.ctx, tx.ID, outbox.Outcome{Status: outbox.TxPending})) // the block left the chain
		if got := f.refundStatus(t, r.ID); got.Status != kassa.RefundSent {
			t.Fatalf("after the reorganisation: %s", got.Status)
		}
		if after, _ := f.db.Invoice(f.ctx, f.m.ID, inv.ID); after.AmountRefunded != 0 {
			t.Fatalf("amount_refunded %d after the reorganisation", after.AmountRefunded)
		}

		// A set-aside payment in another token, paid back from its deposit address.
		open := f.invoice(t, f.m, 1000, nil)
		a := f.address(t, open, "bsc-testnet")
		in := paymentInput(open, "0xd2", 300, true)
		in.TokenID = 2
		wrong, _, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		if wrong.Status != kassa.PaymentManualRetry {
			t.Fatalf("wrong token: %s", wrong.Status)
		}
		req := refundReq(nil, refundAddress, "")
		req.PaymentID, req.Token = wrong.ID, kassa.Token{ID: 2, Network: "bsc-testnet", Symbol: "T2", Decimals: 18}
		wr, err := createRefund(f, p, open.ID, req)
		must(t, err)
		wpo := f.refundPayout(t, wr.ID)
		if wpo.From != a.Address || wpo.FromIndex != int64(a.Index) || wpo.TokenID != 2 || wpo.Amount.Cmp(wrong.AmountUnits) != 0 {
			t.Fatalf("deposit payout %+v, want from %s", wpo, a.Address)
		}
		wtx := f.addTx(t, wpo, outbox.TxTransfer, 0)
		must(t, f.db.RecordTx(f.ctx, wtx.ID, outbox.Outcome{Status: outbox.TxConfirmed, MinedHash: wtx.Latest().Hash, Block: block}))
		_, rs, err := f.db.InvoiceWithPayments(f.ctx, f.m.ID, open.ID, 0)
		must(t, err)
		for _, r := range rs {
			if r.ID == wrong.ID && (r.Resolution != kassa.ResolutionRefunded || r.ResolvedAt == nil) {
				t.Fatalf("refunded payment: %q", r.Resolution)
			}
		}

		// Reverted transfers: pending again with the reason, failed at the end.
		inv3 := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv3, "0xd3", 1000, true)
		r3, err := createRefund(f, p, inv3.ID, refundReq(nil, refundAddress, ""))
		must(t, err)
		po3 := f.refundPayout(t, r3.ID)
		for attempt := 1; attempt <= outbox.MaxPayoutAttempts; attempt++ {
			tx := f.addTx(t, po3, outbox.TxTransfer, 0)
			must(t, f.db.RecordTx(f.ctx, tx.ID, outbox.Outcome{Status: outbox.TxReverted, MinedHash: tx.Latest().Hash,
				Block: block, Reason: "execution reverted"}))
			got := f.refundStatus(t, r3.ID)
			want := kassa.RefundPending
			if attempt == outbox.MaxPayoutAttempts {
				want = kassa.RefundFailed
			}
			if got.Status != want || got.FailureReason != "execution reverted" || got.TxHash != "" {
				t.Fatalf("attempt %d: %s %q", attempt, got.Status, got.FailureReason)
			}
		}
		// Failed: the amount is refundable again.
		again, err := createRefund(f, p, inv3.ID, refundReq(nil, refundAddress, ""))
		must(t, err)
		if again.AmountUSD != 1000 {
			t.Fatalf("after a failed refund: %d refundable", again.AmountUSD)
		}
		// Canceled while queued: its payout fails and is never signed.
		pa := f.refundPayout(t, again.ID)
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, p, again.ID)
		must(t, err)
		open2, err := f.db.OpenPayouts(f.ctx, kassa.Devnet, "bsc-testnet")
		must(t, err)
		for _, o := range open2 {
			if o.ID == pa.ID {
				t.Fatalf("the canceled refund's payout is still open: %s", o.Status)
			}
		}
	})
}

// TestSimulateRefunds: on a network no watcher follows, a pending refund is sent
// and confirmed at once; one awaiting its address is not. Both engines.
func TestSimulateRefunds(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xe1", 1000, true)
		r, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), refundAddress, ""))
		must(t, err)
		waiting, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), "", "x"))
		must(t, err)
		watched := func(string) bool { return true }
		if n, err := f.db.SimulateRefunds(f.ctx, kassa.Devnet, watched, func(string) string { return "0xfeed" }); err != nil || n != 0 {
			t.Fatalf("watched: %d %v", n, err)
		}
		n, err := f.db.SimulateRefunds(f.ctx, kassa.Devnet, func(string) bool { return false }, func(string) string { return "0xfeed" })
		if err != nil || n != 1 {
			t.Fatalf("simulated %d (%v)", n, err)
		}
		if got := f.refundStatus(t, r.ID); got.Status != kassa.RefundConfirmed || got.TxHash != "0xfeed" || got.SentAt == nil {
			t.Fatalf("simulated: %s %s", got.Status, got.TxHash)
		}
		if got := f.refundStatus(t, waiting.ID); got.Status != kassa.RefundAwaitingAddress {
			t.Fatalf("awaiting: %s", got.Status)
		}
		if after, _ := f.db.Invoice(f.ctx, f.m.ID, inv.ID); after.AmountRefunded != 100 {
			t.Fatalf("amount_refunded %d", after.AmountRefunded)
		}
		// Sent, confirmed, and the invoice's amount_refunded with its event.
		want := []string{"refund.updated", "refund.updated", "invoice.updated"}
		if got := f.eventTypes(t, 3); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})
}

// TestRefundWaitsWithItsReason: a refund whose payout waits (the gas wallet is
// short) says why, with refund.updated once per new reason. Both engines.
func TestRefundWaitsWithItsReason(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xd1", 1000, true)
		r, err := createRefund(f, principal(f.m), inv.ID, refundReq(ptr(kassa.Millis(400)), refundAddress, ""))
		must(t, err)
		po := f.refundPayout(t, r.ID)
		const dry = "the gas wallet holds 0 USDT, the refund needs 400000"
		must(t, f.db.WaitPayout(f.ctx, po.ID, dry))
		must(t, f.db.WaitPayout(f.ctx, po.ID, dry)) // the same reason again: no new event
		if got := f.refundStatus(t, r.ID); got.Status != kassa.RefundPending || got.FailureReason != dry {
			t.Fatalf("waiting: %s %q", got.Status, got.FailureReason)
		}
		want := []string{"refund.created", "refund.updated"}
		if got := f.eventTypes(t, 2); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})
}
