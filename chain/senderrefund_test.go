package chain_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundOnDevChain: a commerce order paid in USDT on the dev chain and then
// cancelled is refunded from the gas wallet, in USDT, at the rate the buyer paid,
// to the refund destination; the order ends refunded with the transaction in its
// refund, its timeline and an event.
func TestRefundOnDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		buyer := newAddress(t)
		o := paidCancelledOrder(t, p, buyer)
		p.until(t, 20, "refunded", func() bool {
			got, _ := p.db.Order(p.ctx, p.m.ID, o.ID)
			return got.Status == commerce.OrderRefunded
		})
		got, _ := p.db.Order(p.ctx, p.m.ID, o.ID)
		p.wantBalance(t, usdt, buyer, big.NewInt(16_820_000)) // 17.32 less the 0.50 commerce fee
		if got.Refund.Status != commerce.RefundCompleted || got.Refund.TxHash == "" || got.Refund.Network != "devchain" ||
			got.Refund.Symbol() != "USDT" || got.Refund.Units != "16820000" {
			t.Fatalf("refund %+v", got.Refund)
		}
		tx, err := p.d.pool(t).Node().Transaction(p.ctx, got.Refund.TxHash)
		if err != nil || !strings.EqualFold(tx.From, p.gas) || len(tx.Transfers) != 1 || !strings.EqualFold(tx.Transfers[0].To, buyer) {
			t.Fatalf("refund transaction %+v, %v", tx, err)
		}
		last := got.Timeline[len(got.Timeline)-1]
		if last.Status != commerce.OrderRefunded {
			t.Fatalf("timeline ends with %+v", last)
		}
		evs, _, err := p.db.Events(p.ctx, kassa.EventFilter{MerchantID: p.m.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeCommerce, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 || evs[0].Type != kassa.EventOrderUpdated || !strings.Contains(string(evs[0].Data), `"refunded"`) {
			t.Fatalf("latest commerce event %+v", evs[0])
		}
		// Nothing is refunded twice.
		for range 5 {
			p.step(t)
		}
		p.wantBalance(t, usdt, buyer, big.NewInt(16_820_000))
	})
}

// paidCancelledOrder is a commerce order of p's merchant paid in USDT on the dev chain,
// then cancelled with buyer as its refund destination.
func paidCancelledOrder(t *testing.T, p *payFixture, buyer string) *commerce.Order {
	t.Helper()
	now := p.clock.Now()
	o := &commerce.Order{ID: kassa.NewTimeUUID(now), MerchantID: p.m.ID, Environment: kassa.Devnet, Retailer: commerce.RetailerAmazon,
		Status: commerce.OrderPendingPayment, Substatus: commerce.SubAwaitingPayment,
		Items:    []commerce.LineItem{{ProductID: "B0X", Quantity: 1, UnitPrice: 10_000, Status: commerce.ItemPending}},
		Subtotal: 10_000, Tax: 830, CommerceFee: 500, Total: 17_320,
		Shipping:     commerce.ShippingOption{ID: "standard", Price: 5_990},
		Payment:      commerce.OrderPayment{Status: commerce.OrderPaymentUnpaid},
		Cancellation: commerce.CancellationNone, Refund: commerce.Refund{Status: commerce.RefundNone},
		Timeline: []commerce.TimelineEntry{{Status: commerce.OrderPendingPayment, Timestamp: now, Message: "created"}}}
	pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeCommerce}
	inv, token, err := invoicing.Over(p.db).Prepare(p.ctx, pr, kassa.InvoiceCreate{Amount: o.Total, CommerceOrderID: &o.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.db.CreateOrder(p.ctx, commerce.OrderCreate{Order: o, Invoice: inv, SessionToken: token}, nil); err != nil {
		t.Fatal(err)
	}
	q, err := p.pay.LockAddress(p.ctx, inv, usdt)
	if err != nil {
		t.Fatal(err)
	}
	p.d.send(t, 0, p.tokenAddress(t, usdt), q.Address, big.NewInt(17_320_000))
	p.until(t, 20, "paid", func() bool {
		got, _ := p.db.Order(p.ctx, p.m.ID, o.ID)
		return got.Paid()
	})
	if _, err := p.db.ChangeOrder(p.ctx, p.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
		o.RefundAddress = buyer
		return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
	}); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestRefundGasWalletDry: a refund the gas wallet cannot pay (no coin for gas,
// none of the token) waits, failing nothing, and the gas report says so, tokens
// included; once the wallet is funded the refund goes through.
func TestRefundGasWalletDry(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, false)
		buyer := newAddress(t)
		o := paidCancelledOrder(t, p, buyer)
		for range 10 {
			p.step(t)
		}
		got, _ := p.db.Order(p.ctx, p.m.ID, o.ID)
		if got.Status != commerce.OrderCancelled || got.Refund.Status == commerce.RefundCompleted {
			t.Fatalf("with a dry gas wallet: order %s, refund %+v", got.Status, got.Refund)
		}
		report, err := p.sender.GasReport(p.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !report.Short || report.TokenNeed["USDT"] == nil || report.TokenNeed["USDT"].Cmp(big.NewInt(16_820_000)) != 0 {
			t.Fatalf("gas report %+v, want short with 16.82 USDT of refunds", report)
		}
		if w := report.Warning(); !strings.Contains(w, "16820000 of USDT in refunds (it holds 0)") {
			t.Fatalf("warning %q", w)
		}
		p.fund(t)
		p.until(t, 30, "refunded once funded", func() bool {
			got, _ := p.db.Order(p.ctx, p.m.ID, o.ID)
			return got.Status == commerce.OrderRefunded
		})
		p.wantBalance(t, usdt, buyer, big.NewInt(16_820_000))
	})
}
