package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestCommitsOnlyAfterWrites checks that a committed transaction wakes the
// followers (Commits) when it changed data and only then: a claim that finds
// nothing due must not wake the worker that made it, or an idle worker spins.
func TestCommitsOnlyAfterWrites(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		commits := f.db.Commits()
		var o *commerce.Order
		tests := []struct {
			name     string
			setup    func(t *testing.T) // runs before the transaction that is watched
			op       func(t *testing.T)
			wantWake bool
		}{
			{"empty webhook claim", nil, func(t *testing.T) { f.claim(t, time.Minute, 0) }, false},
			{"empty settlement claim", nil, func(t *testing.T) {
				jobs, err := f.db.ClaimSettlements(f.ctx, 10, time.Minute)
				must(t, err)
				if len(jobs) != 0 {
					t.Fatalf("claimed %d settlements, want none", len(jobs))
				}
			}, false},
			{"empty placement claim", nil, func(t *testing.T) {
				orders, err := f.db.OrdersToPlace(f.ctx, 10, time.Minute)
				must(t, err)
				if len(orders) != 0 {
					t.Fatalf("leased %d orders, want none", len(orders))
				}
			}, false},
			{"invoice create", nil, func(t *testing.T) { f.invoice(t, f.m, 1000, nil) }, true},
			{"order change that changes nothing", func(t *testing.T) { o, _ = f.newOrder(t, f.m, "c1") }, func(t *testing.T) {
				_, err := f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(*commerce.Order, *kassa.Invoice, int, time.Time) (commerce.InvoiceAction, error) {
					return commerce.InvoiceKeep, nil
				})
				must(t, err)
			}, false},
			{"webhook claim that leases", func(t *testing.T) {
				f.endpoint(t, p, "hook", "invoice.created")
				f.invoice(t, f.m, 1000, nil)
			}, func(t *testing.T) { f.claim(t, time.Minute, 1) }, true},
			{"webhook claim of a leased delivery", nil, func(t *testing.T) { f.claim(t, time.Minute, 0) }, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.setup != nil {
					tt.setup(t)
				}
				drain(commits)
				before := f.db.Stats()
				tt.op(t)
				after := f.db.Stats()
				woke := drain(commits)
				if woke != tt.wantWake {
					t.Errorf("Commits signalled %v, want %v", woke, tt.wantWake)
				}
				if after.Transactions <= before.Transactions {
					t.Errorf("Stats().Transactions went from %d to %d, want a count of the transaction", before.Transactions, after.Transactions)
				}
				if wakes := after.Wakes > before.Wakes; wakes != tt.wantWake {
					t.Errorf("Stats().Wakes went from %d to %d, want a wake-up counted: %v", before.Wakes, after.Wakes, tt.wantWake)
				}
			})
		}
	})
}

// TestDeliveriesWake checks that the webhook worker's wake-up (Deliveries) follows
// exactly the commits that queued a delivery due at once: through a create alone
// and in a batch (PostgreSQL), writeEvents and a resend, and never a create no
// endpoint wants, a claim or a recorded attempt, which would cost the worker a
// claim per commit under a load that sends nothing.
func TestDeliveriesWake(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		wake := f.db.Deliveries()
		var (
			inv  *kassa.Invoice
			jobs []*delivery.Job
		)
		tests := []struct {
			name  string
			setup func(t *testing.T) // runs before the transaction that is watched
			op    func(t *testing.T)
			want  bool
		}{
			{"create, no endpoint", nil, func(t *testing.T) { inv = f.invoice(t, f.m, 1000, nil) }, false},
			{"cancel, an endpoint wanting other events", func(t *testing.T) { f.endpoint(t, p, "paid", "invoice.paid") },
				func(t *testing.T) { _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, inv.ID); must(t, err) }, false},
			{"create wanted by an endpoint", func(t *testing.T) { f.endpoint(t, p, "created", "invoice.created") },
				func(t *testing.T) { inv = f.invoice(t, f.m, 1000, nil) }, true},
			{"creates in one batch", nil, func(t *testing.T) { f.createBatch(t, 3) }, true},
			{"claim that leases", nil, func(t *testing.T) { jobs = f.claim(t, time.Minute, 4) }, false},
			{"recorded attempt, a retry planned", nil,
				func(t *testing.T) { f.finish(t, jobs[0], delivery.Result{StatusCode: 500}) }, false},
			{"resend", nil, func(t *testing.T) {
				_, err := endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, p, jobs[1].Delivery.EventID, jobs[1].Delivery.EndpointID)
				must(t, err)
			}, true},
			{"cancel wanted (writeEvents)", func(t *testing.T) { f.endpoint(t, p, "canceled", "invoice.canceled") },
				func(t *testing.T) { _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, inv.ID); must(t, err) }, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.setup != nil {
					tt.setup(t)
				}
				drain(wake)
				tt.op(t)
				if woke := drain(wake); woke != tt.want {
					t.Errorf("Deliveries signalled %v, want %v", woke, tt.want)
				}
			})
		}
	})
}

// drain empties ch and reports whether it held a signal.
func drain(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// createBatch creates n invoices of f.m at once: on PostgreSQL held until all are
// queued, so they are written as one batch; on SQLite concurrently (the group
// commit may or may not gather them). It fails t if any create fails.
func (f *fixture) createBatch(t *testing.T, n int) {
	t.Helper()
	release := func(int) {}
	if f.db.Engine() == store.EnginePostgres {
		release = store.HoldCreates(t, f.db)
	}
	creates := make([]func() (*kassa.Invoice, error), n)
	for i := range creates {
		creates[i] = func() (*kassa.Invoice, error) {
			inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, nil)
			return inv, err
		}
	}
	_, errs := createAll(t, f, release, creates)
	for _, err := range errs {
		must(t, err)
	}
}
