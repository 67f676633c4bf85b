package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// queue is one of the store's leased queues as TestLeasedQueues drives it.
type queue struct {
	name  string
	lease time.Duration                                 // how long a claim holds its rows
	fill  func(t *testing.T, f *fixture, n int)         // makes n due items
	claim func(f *fixture, limit int) ([]string, error) // claims, returning the keys taken
}

// leasedQueues are the three queues that share DB.claim.
func leasedQueues() []queue {
	return []queue{
		{name: "orders to place", lease: time.Minute,
			fill: func(t *testing.T, f *fixture, n int) {
				t.Helper()
				m := f.merchantOn(t, "orders@example.com", kassa.Mainnet)
				for i := range n {
					f.settledOrder(t, m, fmt.Sprintf("c%d", i))
				}
			},
			claim: func(f *fixture, limit int) ([]string, error) {
				os, err := f.db.OrdersToPlace(f.ctx, limit, time.Minute)
				ids := make([]string, len(os))
				for i, o := range os {
					ids[i] = o.ID
				}
				return ids, err
			}},
		{name: "settlements", lease: time.Minute,
			fill: func(t *testing.T, f *fixture, n int) {
				t.Helper()
				for i := range n {
					f.pay(t, f.invoice(t, f.m, 1000, nil), fmt.Sprintf("0x%064d", i), 1000, true)
				}
			},
			claim: func(f *fixture, limit int) ([]string, error) {
				jobs, err := f.db.ClaimSettlements(f.ctx, limit, time.Minute)
				ids := make([]string, len(jobs))
				for i, j := range jobs {
					ids[i] = j.ReceiptID
				}
				return ids, err
			}},
		{name: "webhook deliveries", lease: time.Minute,
			fill: func(t *testing.T, f *fixture, n int) {
				t.Helper()
				f.endpoint(t, principal(f.m), "hook", "invoice.created")
				for range n {
					f.invoice(t, f.m, 1000, nil)
				}
			},
			claim: func(f *fixture, limit int) ([]string, error) {
				jobs, err := f.db.ClaimWebhookJobs(f.ctx, limit, time.Minute)
				ids := make([]string, len(jobs))
				for i, j := range jobs {
					ids[i] = j.Delivery.ID
				}
				return ids, err
			}},
	}
}

// TestLeasedQueues checks each queue's claim: concurrent claimers never take the
// same item and together take every due one; nothing is taken again while its
// lease holds, and everything is once it has run out (its worker died).
func TestLeasedQueues(t *testing.T) {
	for _, q := range leasedQueues() {
		t.Run(q.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f := newFixture(t, cfg)
				const n, claimers = 15, 4
				q.fill(t, f, n)
				var (
					mu    sync.Mutex
					owner = map[string]int{}
					errs  []error
					wg    sync.WaitGroup
				)
				for c := range claimers {
					wg.Go(func() {
						for {
							ids, err := q.claim(f, 2)
							mu.Lock()
							if err != nil {
								errs = append(errs, err)
							}
							for _, id := range ids {
								if prev, ok := owner[id]; ok {
									errs = append(errs, fmt.Errorf("%s claimed by %d and %d", id, prev, c))
								}
								owner[id] = c
							}
							mu.Unlock()
							if err != nil || len(ids) == 0 {
								return
							}
						}
					})
				}
				wg.Wait()
				if len(errs) > 0 {
					t.Fatalf("%d errors, first: %v", len(errs), errs[0])
				}
				if len(owner) != n {
					t.Fatalf("claimed %d items, want %d", len(owner), n)
				}
				if ids, err := q.claim(f, 100); err != nil || len(ids) != 0 {
					t.Fatalf("claimed %d (%v) within the lease, want none", len(ids), err)
				}
				f.clock.Advance(q.lease + time.Second)
				ids, err := q.claim(f, 100)
				if err != nil || len(ids) != n {
					t.Fatalf("claimed %d (%v) after the lease, want %d", len(ids), err, n)
				}
				for _, id := range ids {
					if _, ok := owner[id]; !ok {
						t.Fatalf("claimed %s after the lease, which was never due", id)
					}
				}
			})
		})
	}
}

// merchantOn creates a merchant allowed on env.
func (f *fixture) merchantOn(t *testing.T, email string, env kassa.Environment) *kassa.Merchant {
	t.Helper()
	m, err := f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "Shop " + email, Email: email,
		Password: "correct horse", MainnetEnabled: env == kassa.Mainnet})
	must(t, err)
	return m
}

// settledOrder stores an order of merchant m on mainnet and moves it to
// payment_settled, due for placement.
func (f *fixture) settledOrder(t *testing.T, m *kassa.Merchant, customer string) *commerce.Order {
	t.Helper()
	now := f.clock.Now()
	o := &commerce.Order{ID: kassa.NewTimeUUID(now), MerchantID: m.ID, Environment: kassa.Mainnet, Retailer: commerce.RetailerAmazon,
		Buyer: commerce.Buyer{CustomerID: customer}, Status: commerce.OrderPendingPayment, Substatus: commerce.SubAwaitingPayment,
		Items:    []commerce.LineItem{{ProductID: "B0X", Quantity: 1, UnitPrice: 10_000, Status: commerce.ItemPending}},
		Subtotal: 10_000, Total: 10_000, Payment: commerce.OrderPayment{Status: commerce.OrderPaymentUnpaid},
		Cancellation: commerce.CancellationNone, Refund: commerce.Refund{Status: commerce.RefundNone},
		Timeline: []commerce.TimelineEntry{{Status: commerce.OrderPendingPayment, Timestamp: now, Message: "created"}}}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Mainnet, Scope: kassa.ScopeCommerce, KeyID: "k"}
	inv, token, err := invoicing.Over(f.db).Prepare(f.ctx, p, kassa.InvoiceCreate{Amount: o.Total, CustomerID: &customer, CommerceOrderID: &o.ID})
	must(t, err)
	must(t, f.db.CreateOrder(f.ctx, commerce.OrderCreate{Order: o, Invoice: inv, SessionToken: token}, nil))
	o, err = f.db.ChangeOrder(f.ctx, m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
		if err := o.Advance(commerce.Step{To: commerce.OrderPaymentConfirmed}, now); err != nil {
			return commerce.InvoiceKeep, err
		}
		return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderPaymentSettled}, now)
	})
	must(t, err)
	return o
}
