package store_test

import (
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// newOrder stores a pending devnet order of merchant m with its invoice.
func (f *fixture) newOrder(t *testing.T, m *kassa.Merchant, customer string) (*commerce.Order, *kassa.Invoice) {
	t.Helper()
	now := f.clock.Now()
	o := &commerce.Order{ID: kassa.NewTimeUUID(now), MerchantID: m.ID, Environment: kassa.Devnet, Retailer: commerce.RetailerAmazon,
		Buyer: commerce.Buyer{CustomerID: customer}, Status: commerce.OrderPendingPayment, Substatus: commerce.SubAwaitingPayment,
		Items:    []commerce.LineItem{{ProductID: "B0X", Quantity: 1, UnitPrice: 10_000, Status: commerce.ItemPending}},
		Subtotal: 10_000, Tax: 830, CommerceFee: 500, Total: 17_320,
		Shipping:     commerce.ShippingOption{ID: "standard", Price: 5_990},
		Payment:      commerce.OrderPayment{Status: commerce.OrderPaymentUnpaid},
		Cancellation: commerce.CancellationNone, Refund: commerce.Refund{Status: commerce.RefundNone},
		Timeline: []commerce.TimelineEntry{{Status: commerce.OrderPendingPayment, Timestamp: now, Message: "created"}}}
	inv, token := f.createOrder(t, principal(m), o, kassa.InvoiceCreate{Amount: o.Total, CustomerID: &customer})
	if token == "" || inv.CommerceOrderID == nil || *inv.CommerceOrderID != o.ID || o.InvoiceID != inv.ID {
		t.Fatalf("invoice %+v for order %s", inv, o.ID)
	}
	if got, err := f.db.InvoiceBySession(f.ctx, token); err != nil || got.ID != inv.ID {
		t.Fatalf("the order's session finds %v, %v; want invoice %s", got, err, inv.ID)
	}
	return o, inv
}

func (f *fixture) payOrder(t *testing.T, inv *kassa.Invoice, amount kassa.Millis) {
	t.Helper()
	_, _, err := f.db.IngestPayment(f.ctx, kassa.PaymentInput{MerchantID: inv.MerchantID, InvoiceID: inv.ID,
		Network: "bsc-testnet", TxHash: "0x" + kassa.NewUUID() + "00", TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
		AmountUnits: big.NewInt(int64(amount)), AmountUSD: amount, Confirmations: 12, Confirmed: true})
	must(t, err)
}

func (f *fixture) order(t *testing.T, m *kassa.Merchant, id string) *commerce.Order {
	t.Helper()
	o, err := f.db.Order(f.ctx, m.ID, id)
	must(t, err)
	return o
}

func TestOrderCreateAndIsolation(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		o, _ := f.newOrder(t, f.m, "cus_1")
		got := f.order(t, f.m, o.ID)
		if got.Status != commerce.OrderPendingPayment || got.Total != 17_320 || len(got.Timeline) != 1 || got.InvoiceID != o.InvoiceID {
			t.Fatalf("stored %+v", got)
		}
		other := f.merchant(t, "other@example.com")
		_, err := f.db.Order(f.ctx, other.ID, o.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		_, err = f.db.ChangeOrder(f.ctx, other.ID, o.ID, func(*commerce.Order, *kassa.Invoice, int, time.Time) (commerce.InvoiceAction, error) {
			t.Fatal("change ran for another merchant")
			return commerce.InvoiceKeep, nil
		})
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		evs, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeCommerce, Limit: 10})
		must(t, err)
		if len(evs) != 1 || evs[0].Type != kassa.EventOrderCreated {
			t.Fatalf("events %v", evs)
		}
	})
}

func TestOrderCreateIsAtomic(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		o, _ := f.newOrder(t, f.m, "cus_1")
		// The same order id again: the order insert fails after the invoice insert.
		dup := *o
		dup.Timeline = nil
		amount := kassa.Millis(1_000)
		inv, token, err := invoicing.Over(f.db).Prepare(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: amount, CommerceOrderID: &dup.ID})
		must(t, err)
		if err := f.db.CreateOrder(f.ctx, commerce.OrderCreate{Order: &dup, Invoice: inv, SessionToken: token}, nil); err == nil {
			t.Fatal("duplicate order stored")
		}
		invs, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 10})
		must(t, err)
		if len(invs) != 1 {
			t.Fatalf("%d invoices: the failed order left its invoice behind", len(invs))
		}
	})
}

func TestOrderFollowsItsInvoice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)

		// Paid: confirmed in the payment's transaction, with the payer's wallet.
		o, inv := f.newOrder(t, f.m, "cus_1")
		f.payOrder(t, inv, 5_000)
		if got := f.order(t, f.m, o.ID); got.Status != commerce.OrderPendingPayment || got.Payment.Status != commerce.OrderPaymentUnderpaid {
			t.Fatalf("after part: %s/%s", got.Status, got.Payment.Status)
		}
		f.payOrder(t, inv, 12_320)
		got := f.order(t, f.m, o.ID)
		if got.Status != commerce.OrderPaymentConfirmed || !got.Paid() || got.WalletAddress == "" || got.Payment.TxHash == "" {
			t.Fatalf("after payment: %+v", got)
		}

		// Settled: once every receipt is.
		jobs, err := f.db.ClaimSettlements(f.ctx, 10, time.Minute)
		must(t, err)
		if len(jobs) != 2 {
			t.Fatalf("%d settlement jobs", len(jobs))
		}
		must(t, f.db.FinishSettlement(f.ctx, jobs[0].ReceiptID, kassa.SettlementSettled, "0xs1", ""))
		if got = f.order(t, f.m, o.ID); got.Status != commerce.OrderPaymentConfirmed {
			t.Fatalf("settled with a receipt left: %s", got.Status)
		}
		must(t, f.db.FinishSettlement(f.ctx, jobs[1].ReceiptID, kassa.SettlementSettled, "0xs2", ""))
		if got = f.order(t, f.m, o.ID); got.Status != commerce.OrderPaymentSettled || got.Payment.SettlementTxHash != "0xs2" {
			t.Fatalf("after settlement: %s %+v", got.Status, got.Payment)
		}

		// Expired: the sweeper cancels the order with its invoice.
		o2, _ := f.newOrder(t, f.m, "cus_2")
		f.clock.Advance(13 * time.Hour)
		_, err = f.db.ExpireInvoices(f.ctx, 100)
		must(t, err)
		if got = f.order(t, f.m, o2.ID); got.Status != commerce.OrderCancelled || got.Substatus != commerce.SubPaymentExpired ||
			got.Payment.Status != commerce.OrderPaymentExpired {
			t.Fatalf("after expiry: %s %s %s", got.Status, got.Substatus, got.Payment.Status)
		}

		// Canceled by the merchant through the invoice API: the order follows.
		o3, inv3 := f.newOrder(t, f.m, "cus_3")
		_, err = invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), inv3.ID)
		must(t, err)
		if got = f.order(t, f.m, o3.ID); got.Status != commerce.OrderCancelled || got.Substatus != commerce.SubPaymentCanceled {
			t.Fatalf("after invoice cancel: %s %s", got.Status, got.Substatus)
		}
	})
}

func TestChangeOrder(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		o, inv := f.newOrder(t, f.m, "cus_1")
		count := func() int {
			t.Helper()
			evs, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet,
				Scope: kassa.ScopeCommerce, Limit: 100})
			must(t, err)
			return len(evs)
		}
		// No change: nothing written.
		_, err := f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(*commerce.Order, *kassa.Invoice, int, time.Time) (commerce.InvoiceAction, error) {
			return commerce.InvoiceKeep, nil
		})
		must(t, err)
		if count() != 1 {
			t.Fatalf("a no-op change wrote an event")
		}
		// A failing change rolls everything back, the invoice cancel included.
		boom := errors.New("boom")
		_, err = f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
			_ = o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
			return commerce.InvoiceCancel, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
		if got, _ := f.db.Invoice(f.ctx, f.m.ID, inv.ID); got.Status != kassa.StatusUnpaid || count() != 1 {
			t.Fatalf("failed change left invoice %s and %d events", got.Status, count())
		}
		// Cancel with the invoice: both in one transaction, with their events.
		got, err := f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
			return commerce.InvoiceCancel, o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
		})
		must(t, err)
		if inv2, _ := f.db.Invoice(f.ctx, f.m.ID, inv.ID); got.Status != commerce.OrderCancelled || inv2.Status != kassa.StatusCanceled || count() != 2 {
			t.Fatalf("cancel: order %s invoice %s events %d", got.Status, inv2.Status, count())
		}
	})
}

// TestOrderCancelRacesPayment runs an order cancel against a payment of its
// invoice, many times at once: the two lock invoice then order in the same order,
// so neither deadlocks, and each pair ends one way or the other, never half.
func TestOrderCancelRacesPayment(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const n = 10
		type pair struct {
			o   *commerce.Order
			inv *kassa.Invoice
		}
		pairs := make([]pair, n)
		for i := range pairs {
			pairs[i].o, pairs[i].inv = f.newOrder(t, f.m, "cus")
		}
		errs := make(chan error, 2*n)
		var wg sync.WaitGroup
		for _, p := range pairs {
			wg.Go(func() {
				_, err := f.db.ChangeOrder(f.ctx, f.m.ID, p.o.ID, func(o *commerce.Order, inv *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
					o.FollowInvoice(inv, "", now)
					if inv.Status != kassa.StatusUnpaid {
						return commerce.InvoiceKeep, kassa.Errorf(kassa.KindConflict, "paid", "paid first")
					}
					return commerce.InvoiceCancel, o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
				})
				if err != nil && kassa.ErrorCode(err) != "paid" {
					errs <- err
				}
			})
			wg.Go(func() {
				_, _, err := f.db.IngestPayment(f.ctx, kassa.PaymentInput{MerchantID: f.m.ID, InvoiceID: p.inv.ID,
					Network: "bsc-testnet", TxHash: "0x" + kassa.NewUUID(), TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
					AmountUnits: big.NewInt(1), AmountUSD: p.inv.Amount, Confirmations: 12, Confirmed: true})
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("unexpected error: %v", err)
		}
		for _, p := range pairs {
			o := f.order(t, f.m, p.o.ID)
			inv, err := f.db.Invoice(f.ctx, f.m.ID, p.inv.ID)
			must(t, err)
			cancelled := o.Status == commerce.OrderCancelled && inv.Status == kassa.StatusCanceled
			paid := o.Status == commerce.OrderPaymentConfirmed && inv.Status == kassa.StatusPaid
			if !cancelled && !paid {
				t.Errorf("order %s with invoice %s", o.Status, inv.Status)
			}
		}
	})
}

func TestPruneCheckout(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		now := f.clock.Now()
		e := &commerce.Estimate{ID: kassa.NewTimeUUID(now), MerchantID: f.m.ID, Environment: kassa.Devnet,
			CreatedAt: now, ExpiresAt: now.Add(commerce.EstimateTTL)}
		must(t, f.db.SaveEstimate(f.ctx, e))
		a := &commerce.ShippingAddress{ID: kassa.NewTimeUUID(now), MerchantID: f.m.ID, Environment: kassa.Devnet,
			EstimateID: e.ID, ValidatedAt: now}
		must(t, f.db.SaveShippingAddress(f.ctx, a))
		n, err := f.db.PruneCheckout(f.ctx, now)
		must(t, err)
		if n != 0 {
			t.Fatalf("pruned %d fresh rows", n)
		}
		n, err = f.db.PruneCheckout(f.ctx, now.Add(time.Second))
		must(t, err)
		if n != 2 {
			t.Fatalf("pruned %d, want 2", n)
		}
		_, err = f.db.Estimate(f.ctx, f.m.ID, kassa.Devnet, e.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

// createOrder stores order o with the invoice the invoice service makes of c for p,
// as checkout does, and returns the invoice and its session token.
func (f *fixture) createOrder(t *testing.T, p kassa.Principal, o *commerce.Order, c kassa.InvoiceCreate) (*kassa.Invoice, string) {
	t.Helper()
	c.CommerceOrderID = &o.ID
	inv, token, err := invoicing.Over(f.db).Prepare(f.ctx, p, c)
	must(t, err)
	must(t, f.db.CreateOrder(f.ctx, commerce.OrderCreate{Order: o, Invoice: inv, SessionToken: token}, nil))
	return inv, token
}
