package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// resolve accepts or dismisses the payment id of inv as its merchant.
func (f *fixture) resolve(inv *kassa.Invoice, id string, how kassa.Resolution, confirmations int) (*kassa.Payment, error) {
	p := kassa.Principal{MerchantID: inv.MerchantID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
	return resolvePayment(f, p, inv.ID, id, kassa.ResolveRequest{How: how, Note: "checked by hand", Confirmations: confirmations})
}

// TestResolvePayment: money set aside says why; a merchant accepts it (credited,
// an expired invoice it pays becomes paid, with events) or dismisses it (kept,
// the invoice unchanged, settled to the merchant); resolved once; only set-aside
// money with its confirmations; tenants and environments apart. Both engines.
func TestResolvePayment(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)

		// Late: seen after expiry. Accepting it pays the expired invoice.
		late := f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(kassa.DefaultInvoiceTTL + time.Minute)
		r, got := f.pay(t, late, "0xa1", 1000, true)
		if r.Status != kassa.PaymentManualRetry || r.AttentionReason != kassa.AttentionLate || got.Status != kassa.StatusExpired {
			t.Fatalf("late: receipt %s (%q), invoice %s", r.Status, r.AttentionReason, got.Status)
		}
		acc, err := f.resolve(late, r.ID, kassa.ResolutionAccepted, 0)
		must(t, err)
		if acc.Status != kassa.PaymentConfirmed || acc.Resolution != kassa.ResolutionAccepted || acc.ResolvedAt == nil ||
			acc.ResolutionNote != "checked by hand" || acc.AttentionReason != kassa.AttentionLate {
			t.Fatalf("accepted: %+v", acc)
		}
		inv, err := f.db.Invoice(f.ctx, f.m.ID, late.ID)
		must(t, err)
		if inv.Status != kassa.StatusPaid || inv.AmountPaid != 1000 || inv.PaidAt == nil {
			t.Fatalf("after accept: invoice %s paid %d", inv.Status, inv.AmountPaid)
		}
		want := []string{"invoice_payment.updated", "invoice.updated", "invoice.paid"}
		if got := f.eventTypes(t, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("accept events %v, want %v", got, want)
		}
		_, err = f.resolve(late, r.ID, kassa.ResolutionDismissed, 0)
		wantErr(t, err, kassa.KindConflict, "payment_resolved")
		_, rs, err := f.db.InvoiceWithPayments(f.ctx, f.m.ID, late.ID, 0)
		must(t, err)
		if len(rs) != 1 || rs[0].Resolution != kassa.ResolutionAccepted || rs[0].ResolvedAt == nil {
			t.Fatalf("stored: %+v", rs[0])
		}

		// Wrong token: dismissed, it stays set aside, the invoice is unchanged,
		// and its money settles to the merchant.
		open := f.invoice(t, f.m, 1000, nil)
		f.pay(t, open, "0xb1", 400, true) // locks token 1
		in := paymentInput(open, "0xb2", 300, true)
		in.TokenID = 2
		wrong, before, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		if wrong.Status != kassa.PaymentManualRetry || wrong.AttentionReason != kassa.AttentionWrongToken {
			t.Fatalf("wrong token: %s (%q)", wrong.Status, wrong.AttentionReason)
		}
		dis, err := f.resolve(open, wrong.ID, kassa.ResolutionDismissed, 0)
		must(t, err)
		if dis.Status != kassa.PaymentManualRetry || dis.Resolution != kassa.ResolutionDismissed {
			t.Fatalf("dismissed: %+v", dis)
		}
		after, err := f.db.Invoice(f.ctx, f.m.ID, open.ID)
		must(t, err)
		if after.Status != before.Status || after.AmountPaid != before.AmountPaid {
			t.Fatalf("dismiss moved the invoice: %s %d, was %s %d", after.Status, after.AmountPaid, before.Status, before.AmountPaid)
		}
		jobs, err := f.db.ClaimSettlements(f.ctx, 100, time.Minute)
		must(t, err)
		claimed := map[string]bool{}
		for _, j := range jobs {
			claimed[j.ReceiptID] = true
		}
		if !claimed[wrong.ID] || !claimed[acc.ID] {
			t.Fatalf("settlement claimed %v; want the dismissed %s and the accepted %s", claimed, wrong.ID, acc.ID)
		}

		// Money on a paid invoice is on a final invoice.
		paid := f.invoice(t, f.m, 500, nil)
		f.pay(t, paid, "0xc1", 500, true)
		extra, _ := f.pay(t, paid, "0xc2", 200, true)
		if extra.AttentionReason != kassa.AttentionFinalInvoice {
			t.Fatalf("on a paid invoice: %q", extra.AttentionReason)
		}
		// Counted money is not set aside.
		counted := f.invoice(t, f.m, 500, nil)
		c, _ := f.pay(t, counted, "0xd1", 100, true)
		_, err = f.resolve(counted, c.ID, kassa.ResolutionAccepted, 0)
		wantErr(t, err, kassa.KindConflict, "payment_not_set_aside")

		// On chain, below its network's confirmations: neither.
		chain := f.invoice(t, f.m, 1000, nil)
		f.pay(t, chain, "0xe1", 100, true)
		in = paymentInput(chain, "0xe2", 100, false)
		in.TokenID, in.BlockNumber, in.BlockHash, in.Confirmations = 2, 7, "0x07", 1
		shallow, _, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		for _, how := range []kassa.Resolution{kassa.ResolutionAccepted, kassa.ResolutionDismissed} {
			_, err = f.resolve(chain, shallow.ID, how, 3)
			wantErr(t, err, kassa.KindConflict, "payment_not_confirmed")
		}
		_, err = f.resolve(chain, shallow.ID, kassa.ResolutionDismissed, 1)
		must(t, err)

		// Another merchant's invoice, an unknown payment, another environment.
		other := f.merchant(t, "other@example.com")
		_, err = resolvePayment(f, principal(other), open.ID, wrong.ID, kassa.ResolveRequest{How: kassa.ResolutionAccepted})
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		_, err = f.resolve(open, kassa.NewTimeUUID(f.clock.Now()), kassa.ResolutionAccepted, 0)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		_, err = f.resolve(open, "not-a-uuid", kassa.ResolutionAccepted, 0)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		mainnet := principal(f.m)
		mainnet.Environment = kassa.Mainnet
		_, err = resolvePayment(f, mainnet, paid.ID, extra.ID, kassa.ResolveRequest{How: kassa.ResolutionDismissed})
		wantErr(t, err, kassa.KindPermission, "environment_mismatch")
	})
}

// TestResolveRefundingPayment: a payment with a refund under way is neither
// accepted nor dismissed (the refund may be paid from its deposit address, which
// a settlement would empty); once the refund is canceled it may be. Both engines.
func TestResolveRefundingPayment(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xa1", 400, true) // locks token 1
		in := paymentInput(inv, "0xa2", 300, true)
		in.TokenID = 2
		wrong, _, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		req := refundReq(nil, refundAddress, "")
		req.PaymentID, req.Token = wrong.ID, kassa.Token{ID: 2, Network: "bsc-testnet", Symbol: "USDC", Decimals: 18}
		r, err := createRefund(f, principal(f.m), inv.ID, req)
		must(t, err)
		for _, how := range []kassa.Resolution{kassa.ResolutionAccepted, kassa.ResolutionDismissed} {
			_, err = f.resolve(inv, wrong.ID, how, 0)
			wantErr(t, err, kassa.KindConflict, "payment_being_refunded")
		}
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, principal(f.m), r.ID)
		must(t, err)
		_, err = f.resolve(inv, wrong.ID, kassa.ResolutionDismissed, 0)
		must(t, err)
	})
}

// resolvePayment resolves a payment through the store with the payment service's
// rule, as payment.Service.Resolve does.
func resolvePayment(f *fixture, p kassa.Principal, invoiceID, paymentID string, req kassa.ResolveRequest) (*kassa.Payment, error) {
	return f.db.ResolvePayment(f.ctx, p.MerchantID, invoiceID, paymentID, req, payment.DecideResolve(p, req))
}
