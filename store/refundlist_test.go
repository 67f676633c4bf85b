package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// refundIDs are the ids of rs, in order.
func refundIDs(rs []*kassa.Refund) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func sameIDs(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestRefundsOf: the reports read the refunds of a page of the merchant's
// invoices, oldest first, every status, never another merchant's. Both engines.
func TestRefundsOf(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xa1", 1000, true)
		r1, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(400)), refundAddress, ""))
		must(t, err)
		f.clock.Advance(time.Second)
		r2, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), "", "claim"))
		must(t, err)
		f.clock.Advance(time.Second)
		r3, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(200)), refundAddress, ""))
		must(t, err)
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, p, r3.ID)
		must(t, err)
		none := f.invoice(t, f.m, 500, nil)

		other := f.merchant(t, "other@example.com")
		theirs := f.invoice(t, other, 1000, nil)
		f.pay(t, theirs, "0xa2", 1000, true)
		_, err = createRefund(f, principal(other), theirs.ID, refundReq(nil, refundAddress, ""))
		must(t, err)

		got, err := f.db.RefundsOf(f.ctx, f.m.ID, []string{inv.ID, none.ID, theirs.ID, "inv_unknown"})
		must(t, err)
		if len(got) != 1 || !sameIDs(refundIDs(got[inv.ID]), r1.ID, r2.ID, r3.ID) {
			t.Fatalf("refunds of %v", got)
		}
		if c := got[inv.ID][2]; c.Status != kassa.RefundCanceled || c.AmountUSD != 200 || c.Reason != "returned" {
			t.Fatalf("canceled refund %+v", c)
		}
		if empty, err := f.db.RefundsOf(f.ctx, f.m.ID, nil); err != nil || len(empty) != 0 {
			t.Fatalf("no ids: %v %v", empty, err)
		}
	})
}

// TestWaitingRefunds: what `kassa wallet` lists as waiting for the gas wallet of
// a network: pending refunds not yet queued or queued from the gas wallet (any
// merchant's: the wallet is the environment's), and those awaiting the payor's
// address; not one paid from a deposit address, signed, canceled, or on another
// network. Both engines.
func TestWaitingRefunds(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xb1", 1000, true)
		queued, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(300)), refundAddress, ""))
		must(t, err)
		f.clock.Advance(time.Second)
		claim, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), "", "claim"))
		must(t, err)
		f.clock.Advance(time.Second)
		canceled, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), refundAddress, ""))
		must(t, err)
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, p, canceled.ID)
		must(t, err)
		f.clock.Advance(time.Second)
		signed, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(200)), refundAddress, ""))
		must(t, err)

		// A wrong-token payment set aside is paid back from its deposit address.
		open := f.invoice(t, f.m, 1000, nil)
		f.address(t, open, "bsc-testnet")
		in := paymentInput(open, "0xb2", 300, true)
		in.TokenID = 2
		wrong, _, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		req := refundReq(nil, refundAddress, "")
		req.PaymentID, req.Token = wrong.ID, kassa.Token{ID: 2, Network: "bsc-testnet", Symbol: "T2", Decimals: 18}
		fromDeposit, err := createRefund(f, p, open.ID, req)
		must(t, err)

		other := f.merchant(t, "other@example.com")
		theirs := f.invoice(t, other, 1000, nil)
		f.pay(t, theirs, "0xb3", 1000, true)
		f.clock.Advance(time.Second)
		theirRefund, err := createRefund(f, principal(other), theirs.ID, refundReq(nil, refundAddress, ""))
		must(t, err)

		waiting := func() []string {
			t.Helper()
			rs, err := f.db.WaitingRefunds(f.ctx, kassa.Devnet, "bsc-testnet")
			must(t, err)
			return refundIDs(rs)
		}
		// Before the sender queued anything: the deposit address's refund is not the wallet's.
		if got := waiting(); !sameIDs(got, queued.ID, claim.ID, signed.ID, theirRefund.ID) {
			t.Fatalf("before queueing: %v", got)
		}
		f.refundPayout(t, queued.ID)
		f.addTx(t, f.refundPayout(t, signed.ID), outbox.TxTransfer, 0) // signed: sent, no longer waiting
		if got := waiting(); !sameIDs(got, queued.ID, claim.ID, theirRefund.ID) {
			t.Fatalf("after queueing: %v (the deposit refund %s)", got, fromDeposit.ID)
		}
		// Paid from the merchant's own wallet: not the gas wallet's; handed back, it is again.
		_, err = payFromOwnWallet(f, p, queued.ID)
		must(t, err)
		if got := waiting(); !sameIDs(got, claim.ID, theirRefund.ID) {
			t.Fatalf("with the merchant paying %s: %v", queued.ID, got)
		}
		_, err = letKassaPay(f, p, queued.ID)
		must(t, err)
		if got := waiting(); !sameIDs(got, queued.ID, claim.ID, theirRefund.ID) {
			t.Fatalf("handed back to Kassa: %v", got)
		}
		if rs, err := f.db.WaitingRefunds(f.ctx, kassa.Devnet, "ethereum-sepolia"); err != nil || len(rs) != 0 {
			t.Fatalf("another network: %v %v", rs, err)
		}
	})
}
