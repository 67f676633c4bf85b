package store_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// allEvents pages through every event f selects (its Limit is the page size),
// newest first.
func (f *fixture) allEvents(t *testing.T, filter kassa.EventFilter) []*kassa.Event {
	t.Helper()
	var out []*kassa.Event
	for {
		page, more, err := f.db.Events(f.ctx, filter)
		must(t, err)
		out = append(out, page...)
		if !more {
			return out
		}
		if len(page) == 0 {
			t.Fatal("Events: more with an empty page")
		}
		filter.StartingAfter = page[len(page)-1].ID
	}
}

// merchantEvents returns every devnet merchant-scope event of m, newest first.
func (f *fixture) merchantEvents(t *testing.T, m *kassa.Merchant) []*kassa.Event {
	t.Helper()
	return f.allEvents(t, kassa.EventFilter{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, Limit: 100})
}

func eventIDs(es []*kassa.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func eventTypesOf(es []*kassa.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}

// apiJSON renders v as the API and the event data do: without HTML escaping.
func apiJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := kassa.MarshalJSON(wireOf(v))
	must(t, err)
	return string(b)
}

// wireOf is v with its invoices in their canonical JSON, as the API and the
// event data render them (an Invoice refuses to be encoded by its Go fields).
func wireOf(v any) any {
	switch v := v.(type) {
	case *kassa.Invoice:
		return invoicejson.Expanded{Invoice: v}
	case []*kassa.Invoice:
		w := make([]invoicejson.Expanded, len(v))
		for i, inv := range v {
			w[i] = invoicejson.Expanded{Invoice: inv}
		}
		return w
	}
	return v
}

// rawCount runs a COUNT query straight on the engine's database, past the store, to
// check rows that no store method shows any more.
func rawCount(t *testing.T, cfg store.Config, query string, args ...any) int {
	t.Helper()
	driver, dsn := "pgx", cfg.DatabaseURL
	if dsn == "" {
		driver, dsn = "sqlite", filepath.Join(cfg.DataDir, "kassa.db")+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	}
	db, err := sql.Open(driver, dsn)
	must(t, err)
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestEventOutbox checks that every change writes its events, about the object the
// change returned, with their webhook deliveries, and that a change that fails
// writes no event, no delivery and no row.
func TestEventOutbox(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/hook"), EnabledEvents: []string{"*"}})
		must(t, err)
		seen := 0
		// newEvents returns the events written since the last call, oldest first.
		newEvents := func(t *testing.T) []*kassa.Event {
			t.Helper()
			all := f.merchantEvents(t, f.m)
			slices.Reverse(all)
			got := all[seen:]
			seen = len(all)
			return got
		}
		check := func(t *testing.T, es []*kassa.Event, want ...any) {
			t.Helper()
			if len(es) != len(want)/2 {
				t.Fatalf("events %v, want %v", eventTypesOf(es), want)
			}
			for i, e := range es {
				typ, obj := want[2*i].(string), want[2*i+1]
				if e.Type != typ || e.MerchantID != f.m.ID || e.Environment != kassa.Devnet {
					t.Fatalf("event %d = %s of %d/%s, want %s", i, e.Type, e.MerchantID, e.Environment, typ)
				}
				if string(e.Data) != apiJSON(t, obj) {
					t.Fatalf("%s data:\n got %s\nwant %s", typ, e.Data, apiJSON(t, obj))
				}
				ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID, EventID: e.ID})
				must(t, err)
				if len(ds) != 1 || ds[0].EventType != typ || ds[0].Status != kassa.DeliveryPending {
					t.Fatalf("%s: deliveries %s", typ, jsonOf(t, ds))
				}
			}
		}

		inv := f.invoice(t, f.m, 1000, func(c *kassa.InvoiceCreate) { c.Description = ptr("Tea & <cake>") })
		check(t, newEvents(t), kassa.EventInvoiceCreated, inv)

		f.clock.Advance(time.Second)
		r, got := f.pay(t, inv, "0xaa", 400, false)
		check(t, newEvents(t), kassa.EventPaymentCreated, r, kassa.EventInvoiceUpdated, got)
		f.clock.Advance(time.Second)
		r, got = f.pay(t, inv, "0xbb", 600, true)
		check(t, newEvents(t), kassa.EventPaymentCreated, r, kassa.EventInvoiceUpdated, got)
		f.clock.Advance(time.Second)
		r, got = f.pay(t, inv, "0xaa", 400, true)
		check(t, newEvents(t), kassa.EventPaymentUpdated, r, kassa.EventInvoiceUpdated, got, kassa.EventInvoicePaid, got)

		other := f.invoice(t, f.m, 2000, nil)
		check(t, newEvents(t), kassa.EventInvoiceCreated, other)
		f.clock.Advance(time.Second)
		canceled, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, other.ID)
		must(t, err)
		check(t, newEvents(t), kassa.EventInvoiceCanceled, canceled, kassa.EventInvoiceUpdated, canceled)

		invoices := func() int {
			list, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 100})
			must(t, err)
			return len(list)
		}
		deliveries := func() int {
			ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID, Limit: 100})
			must(t, err)
			return len(ds)
		}
		nInvoices, nDeliveries := invoices(), deliveries()
		if nDeliveries != seen {
			t.Fatalf("%d deliveries for %d events", nDeliveries, seen)
		}

		claimKey := func(key string, owner string) kassa.IdempotencyScope {
			t.Helper()
			s := scope(f, key)
			s.Owner = owner
			if rec := claim(t, f, s, "fp"); rec != nil {
				t.Fatalf("claim %s = %+v", key, rec)
			}
			return s
		}
		withPending := f.invoice(t, f.m, 1000, nil)
		f.pay(t, withPending, "0xcc", 100, false)
		fresh := f.invoice(t, f.m, 1000, nil)
		newEvents(t)
		nInvoices, nDeliveries = invoices(), deliveries()
		tests := []struct {
			name string
			do   func() error
			kind kassa.ErrorKind
			code string
		}{
			{"cancel twice", func() error { _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, other.ID); return err },
				kassa.KindConflict, "invoice_not_cancelable"},
			{"cancel paid", func() error { _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, inv.ID); return err },
				kassa.KindConflict, "invoice_not_cancelable"},
			{"cancel with payments", func() error { _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, withPending.ID); return err },
				kassa.KindConflict, "invoice_has_payments"},
			{"create invalid", func() error {
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 5}, nil)
				return err
			}, kassa.KindInvalid, "amount_out_of_range"},
			{"create on mainnet without access", func() error {
				mp := p
				mp.Environment = kassa.Mainnet
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
				return err
			}, kassa.KindPermission, "mainnet_not_enabled"},
			{"transfer recorded for another invoice", func() error {
				in := paymentInput(fresh, "0xaa", 400, true)
				_, _, err := f.db.IngestPayment(f.ctx, in)
				return err
			}, kassa.KindConflict, "transfer_already_recorded"},
			// These fail after the invoice and its event were written in the
			// transaction: the rollback must take the event and delivery too.
			{"create whose response fails", func() error {
				iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: claimKey("fails", ""), Render: func(kassa.CreatedInvoice) (int, []byte, error) {
					return 0, nil, kassa.Errorf(kassa.KindInternal, "render_failed", "The response could not be rendered.")
				}}
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
				return err
			}, kassa.KindInternal, "render_failed"},
			{"create under a lost idempotency claim", func() error {
				a := claimKey("lost", "owner-a")
				f.clock.Advance(kassa.IdempotencyStale)
				b := scope(f, "lost")
				b.Owner = "owner-b"
				if rec := claim(t, f, b, "fp"); rec != nil {
					t.Fatalf("take over = %+v", rec)
				}
				iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: a, Claimed: true, Render: func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("{}"), nil }}
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
				return err
			}, kassa.KindIdempotency, "idempotency_key_in_use"},
			{"create whose key a concurrent request saved first", func() error {
				s := scope(f, "won-elsewhere")
				must(t, f.db.SaveIdempotentResponse(f.ctx, s, "fp", 201, []byte("{}")))
				iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp", Render: func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("{}"), nil }}
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
				return err
			}, kassa.KindIdempotency, "idempotency_key_in_use"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, tt.do(), tt.kind, tt.code)
				if es := newEvents(t); len(es) != 0 {
					t.Fatalf("a failed change wrote events %v", eventTypesOf(es))
				}
				if n := invoices(); n != nInvoices {
					t.Fatalf("%d invoices, want %d", n, nInvoices)
				}
				if n := deliveries(); n != nDeliveries {
					t.Fatalf("%d deliveries, want %d", n, nDeliveries)
				}
			})
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM events"); n != seen {
			t.Fatalf("%d events stored, want %d", n, seen)
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries"); n != seen {
			t.Fatalf("%d deliveries stored, want %d", n, seen)
		}
	})
}
