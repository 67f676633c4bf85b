package store_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
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
	b, err := kassa.MarshalJSON(v)
	must(t, err)
	return string(b)
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

// feedAll follows the feed from pos until it has want events, and returns them.
// On PostgreSQL events appear only once every older transaction of the cluster has
// ended, so it polls, up to a generous deadline.
func (f *fixture) feedAll(t *testing.T, pos kassa.FeedPos, want int) []*kassa.Event {
	t.Helper()
	var out []*kassa.Event
	deadline := time.Now().Add(30 * time.Second)
	for len(out) < want {
		es, err := f.db.FeedAfter(f.ctx, pos, 7)
		must(t, err)
		for _, e := range es {
			if !e.Pos.After(pos) {
				t.Fatalf("feed went back: %+v after %+v", e.Pos, pos)
			}
			pos = e.Pos
		}
		out = append(out, es...)
		if len(es) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("feed has %d events after 30s, want %d", len(out), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if len(out) != want {
		t.Fatalf("feed has %d events, want %d", len(out), want)
	}
	return out
}

// TestEventOutbox checks that every change writes its events, about the object the
// change returned, with their webhook deliveries, and that a change that fails
// writes no event, no delivery and no row.
func TestEventOutbox(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep, err := f.db.CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
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
		canceled, err := f.db.CancelInvoice(f.ctx, p, other.ID)
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
			{"cancel twice", func() error { _, err := f.db.CancelInvoice(f.ctx, p, other.ID); return err },
				kassa.KindConflict, "invoice_not_cancelable"},
			{"cancel paid", func() error { _, err := f.db.CancelInvoice(f.ctx, p, inv.ID); return err },
				kassa.KindConflict, "invoice_not_cancelable"},
			{"cancel with payments", func() error { _, err := f.db.CancelInvoice(f.ctx, p, withPending.ID); return err },
				kassa.KindConflict, "invoice_has_payments"},
			{"create invalid", func() error {
				_, _, err := f.db.CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 5}, nil)
				return err
			}, kassa.KindInvalid, "amount_out_of_range"},
			{"create on mainnet without access", func() error {
				mp := p
				mp.Environment = kassa.Mainnet
				_, _, err := f.db.CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
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
				_, _, err := f.db.CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
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
				_, _, err := f.db.CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
				return err
			}, kassa.KindIdempotency, "idempotency_key_in_use"},
			{"create whose key a concurrent request saved first", func() error {
				s := scope(f, "won-elsewhere")
				must(t, f.db.SaveIdempotentResponse(f.ctx, s, "fp", 201, []byte("{}")))
				iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp", Render: func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("{}"), nil }}
				_, _, err := f.db.CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, iw)
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

func TestEventsList(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		_, err := f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)

		// Seven invoices a second apart, then a payment and a cancel: 12 events.
		var invs []*kassa.Invoice
		for range 7 {
			invs = append(invs, f.invoice(t, f.m, 1000, nil))
			f.clock.Advance(time.Second)
		}
		f.pay(t, invs[0], "0x01", 100, false) // invoice_payment.created, invoice.updated
		f.clock.Advance(time.Second)
		_, err = f.db.CancelInvoice(f.ctx, principal(f.m), invs[1].ID) // invoice.canceled, invoice.updated
		must(t, err)
		foreign := f.invoice(t, other, 1000, nil)
		mp := principal(f.m)
		mp.Environment = kassa.Mainnet
		_, _, err = f.db.CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
		must(t, err)

		base := kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, Limit: 100}
		timeline := base
		receipts, err := f.db.InvoicePayments(f.ctx, f.m.ID, invs[0].ID, 10)
		must(t, err)
		timeline.ObjectIDs = []string{invs[0].ID, receipts[0].ID}
		if got := f.allEvents(t, timeline); len(got) != 3 || got[0].Type != "invoice.updated" ||
			got[1].Type != "invoice_payment.created" || got[2].Type != "invoice.created" {
			t.Fatalf("the timeline of an invoice and its receipt: %d events, newest %v", len(got), got)
		}
		all := f.allEvents(t, base)
		ids := eventIDs(all)
		wantTypes := []string{"invoice.updated", "invoice.canceled", "invoice.updated", "invoice_payment.created",
			"invoice.created", "invoice.created", "invoice.created", "invoice.created", "invoice.created", "invoice.created", "invoice.created"}
		if fmt.Sprint(eventTypesOf(all)) != fmt.Sprint(wantTypes) {
			t.Fatalf("types newest first %v, want %v", eventTypesOf(all), wantTypes)
		}
		for _, e := range all {
			if e.MerchantID != f.m.ID || e.Environment != kassa.Devnet {
				t.Fatalf("foreign event listed: %+v", e)
			}
		}
		// ids[10] is the first invoice's event, created at t0; ids[4] the seventh's, at t0+6s.
		at := func(s int) *time.Time { v := t0.Add(time.Duration(s) * time.Second); return &v }

		filter := func(mod func(*kassa.EventFilter)) kassa.EventFilter {
			f := base
			f.Limit = 0
			mod(&f)
			return f
		}
		tests := []struct {
			name string
			f    kassa.EventFilter
			want []string
			more bool
		}{
			{"default limit 10", filter(func(*kassa.EventFilter) {}), ids[:10], true},
			{"limit 3", filter(func(f *kassa.EventFilter) { f.Limit = 3 }), ids[:3], true},
			{"limit over 100 is 100", filter(func(f *kassa.EventFilter) { f.Limit = 1000 }), ids, false},
			{"limit exactly all", filter(func(f *kassa.EventFilter) { f.Limit = len(ids) }), ids, false},
			{"starting_after", filter(func(f *kassa.EventFilter) { f.Limit = 3; f.StartingAfter = ids[2] }), ids[3:6], true},
			{"starting_after to the end", filter(func(f *kassa.EventFilter) { f.Limit = 3; f.StartingAfter = ids[7] }), ids[8:], false},
			{"starting_after the oldest", filter(func(f *kassa.EventFilter) { f.StartingAfter = ids[10] }), []string{}, false},
			{"ending_before", filter(func(f *kassa.EventFilter) { f.Limit = 3; f.EndingBefore = ids[6] }), ids[3:6], true},
			{"ending_before to the start", filter(func(f *kassa.EventFilter) { f.Limit = 3; f.EndingBefore = ids[3] }), ids[:3], false},
			{"ending_before the newest", filter(func(f *kassa.EventFilter) { f.EndingBefore = ids[0] }), []string{}, false},
			{"type exact", filter(func(f *kassa.EventFilter) { f.Types = []string{"invoice.canceled"} }), ids[1:2], false},
			{"type list", filter(func(f *kassa.EventFilter) { f.Types = []string{"invoice.canceled", "invoice_payment.created"} }),
				[]string{ids[1], ids[3]}, false},
			{"type wildcard excludes invoice_payment", filter(func(f *kassa.EventFilter) { f.Types = []string{"invoice.*"}; f.Limit = 100 }),
				slices.Concat(ids[:3], ids[4:]), false},
			{"type wildcard of payments", filter(func(f *kassa.EventFilter) { f.Types = []string{"invoice_payment.*"} }), ids[3:4], false},
			{"type with cursor", filter(func(f *kassa.EventFilter) {
				f.Types = []string{"invoice.updated"}
				f.Limit = 1
				f.StartingAfter = ids[0]
			}), ids[2:3], false},
			{"type wildcard *", filter(func(f *kassa.EventFilter) { f.Types = []string{"*"}; f.Limit = 100 }), ids, false},
			{"unknown type", filter(func(f *kassa.EventFilter) { f.Types = []string{"invoice.deleted"} }), []string{}, false},
			{"commerce types for a merchant key", filter(func(f *kassa.EventFilter) { f.Types = []string{"commerce.*"} }), []string{}, false},
			{"created_gte", filter(func(f *kassa.EventFilter) { f.CreatedGTE = at(6) }), ids[:5], false},
			{"created_lte", filter(func(f *kassa.EventFilter) { f.CreatedLTE = at(1) }), ids[9:], false},
			{"created range", filter(func(f *kassa.EventFilter) { f.CreatedGTE = at(2); f.CreatedLTE = at(4) }), ids[6:9], false},
			{"created range with limit", filter(func(f *kassa.EventFilter) { f.CreatedGTE = at(2); f.CreatedLTE = at(4); f.Limit = 2 }),
				ids[6:8], true},
			{"created range with cursor", filter(func(f *kassa.EventFilter) {
				f.CreatedGTE = at(2)
				f.CreatedLTE = at(4)
				f.Limit = 2
				f.StartingAfter = ids[7]
			}), ids[8:9], false},
			{"created_gte inside the second", filter(func(f *kassa.EventFilter) { v := at(6).Add(time.Microsecond); f.CreatedGTE = &v }),
				ids[:4], false},
			{"empty range", filter(func(f *kassa.EventFilter) { f.CreatedGTE = at(5); f.CreatedLTE = at(4) }), []string{}, false},
			{"commerce scope sees no invoice events", filter(func(f *kassa.EventFilter) { f.Scope = kassa.ScopeCommerce }), []string{}, false},
			{"mainnet", filter(func(f *kassa.EventFilter) { f.Environment = kassa.Mainnet }), nil, false},
			{"other merchant", filter(func(f *kassa.EventFilter) { f.MerchantID = other.ID }), nil, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, more, err := f.db.Events(f.ctx, tt.f)
				must(t, err)
				if tt.want == nil { // one event of another environment or merchant
					if len(got) != 1 || got[0].Type != kassa.EventInvoiceCreated || got[0].MerchantID != tt.f.MerchantID ||
						got[0].Environment != tt.f.Environment || slices.Contains(ids, got[0].ID) || more {
						t.Fatalf("got %s more %v", jsonOf(t, got), more)
					}
					if tt.f.MerchantID == other.ID {
						var obj struct{ ID string }
						must(t, json.Unmarshal(got[0].Data, &obj))
						if obj.ID != foreign.ID {
							t.Fatalf("other merchant's event is about %s, want %s", obj.ID, foreign.ID)
						}
					}
					return
				}
				if fmt.Sprint(eventIDs(got)) != fmt.Sprint(tt.want) || more != tt.more {
					t.Fatalf("got %v more %v,\nwant %v more %v", eventIDs(got), more, tt.want, tt.more)
				}
			})
		}

		t.Run("paging both ways covers everything once", func(t *testing.T) {
			for _, limit := range []int{1, 2, 3, 4, 11} {
				fwd := f.allEvents(t, filter(func(f *kassa.EventFilter) { f.Limit = limit }))
				if fmt.Sprint(eventIDs(fwd)) != fmt.Sprint(ids) {
					t.Fatalf("limit %d forward: %v", limit, eventIDs(fwd))
				}
				var back []string
				cur := filter(func(f *kassa.EventFilter) { f.Limit = limit })
				page, _, err := f.db.Events(f.ctx, filter(func(f *kassa.EventFilter) {
					f.Limit = 1
					f.StartingAfter = ids[len(ids)-2]
				}))
				must(t, err)
				back = eventIDs(page) // the oldest
				cur.EndingBefore = page[0].ID
				for {
					page, more, err := f.db.Events(f.ctx, cur)
					must(t, err)
					back = append(eventIDs(page), back...)
					if !more {
						break
					}
					cur.EndingBefore = page[0].ID
				}
				if fmt.Sprint(back) != fmt.Sprint(ids) {
					t.Fatalf("limit %d backward: %v", limit, back)
				}
			}
		})

		t.Run("bad cursors", func(t *testing.T) {
			foreignEvents := f.merchantEvents(t, other)
			mainnetEvents := f.allEvents(t, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Mainnet, Scope: kassa.ScopeMerchant})
			cases := []struct {
				name  string
				mod   func(*kassa.EventFilter)
				param string
			}{
				{"another merchant's event", func(f *kassa.EventFilter) { f.StartingAfter = foreignEvents[0].ID }, "starting_after"},
				{"another merchant's event backward", func(f *kassa.EventFilter) { f.EndingBefore = foreignEvents[0].ID }, "ending_before"},
				{"another environment's event", func(f *kassa.EventFilter) { f.StartingAfter = mainnetEvents[0].ID }, "starting_after"},
				{"an event of another scope", func(f *kassa.EventFilter) { f.Scope = kassa.ScopeCommerce; f.Types = nil; f.StartingAfter = ids[0] },
					"starting_after"},
				{"unknown id", func(f *kassa.EventFilter) { f.StartingAfter = kassa.NewEventID(t0) }, "starting_after"},
				{"garbage", func(f *kassa.EventFilter) { f.EndingBefore = "evt_'; DROP TABLE events; --" }, "ending_before"},
				{"both", func(f *kassa.EventFilter) { f.StartingAfter, f.EndingBefore = ids[1], ids[5] }, "ending_before"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					_, _, err := f.db.Events(f.ctx, filter(c.mod))
					wantErr(t, err, kassa.KindInvalid, "invalid_cursor")
					if e := kassa.AsError(err); e.Param != c.param {
						t.Fatalf("param %q, want %q", e.Param, c.param)
					}
				})
			}
		})

		t.Run("retrieve", func(t *testing.T) {
			e, err := f.db.Event(f.ctx, f.m.ID, kassa.Devnet, kassa.ScopeMerchant, ids[1])
			must(t, err)
			if e.ID != ids[1] || e.Type != kassa.EventInvoiceCanceled || string(e.Data) != string(all[1].Data) {
				t.Fatalf("Event = %+v", e)
			}
			cases := []struct {
				name     string
				merchant int64
				env      kassa.Environment
				scope    kassa.Scope
				id       string
			}{
				{"other merchant", other.ID, kassa.Devnet, kassa.ScopeMerchant, ids[1]},
				{"other environment", f.m.ID, kassa.Mainnet, kassa.ScopeMerchant, ids[1]},
				{"commerce scope", f.m.ID, kassa.Devnet, kassa.ScopeCommerce, ids[1]},
				{"unknown", f.m.ID, kassa.Devnet, kassa.ScopeMerchant, kassa.NewEventID(t0)},
				{"not an event id", f.m.ID, kassa.Devnet, kassa.ScopeMerchant, "x"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					_, err := f.db.Event(f.ctx, c.merchant, c.env, c.scope, c.id)
					wantErr(t, err, kassa.KindNotFound, "resource_missing")
				})
			}
		})
	})
}

func TestEventFeed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		_, err := f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		for i := range 3 {
			f.invoice(t, f.m, 1000, nil)
			f.invoice(t, other, 1000+kassa.Millis(i), nil)
		}
		mp := principal(f.m)
		mp.Environment = kassa.Mainnet
		_, _, err = f.db.CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
		must(t, err)

		feed := f.feedAll(t, kassa.FeedPos{}, 7)
		var merchants []int64
		for _, e := range feed {
			merchants = append(merchants, e.MerchantID)
		}
		m, o := f.m.ID, other.ID
		if fmt.Sprint(merchants) != fmt.Sprint([]int64{m, o, m, o, m, o, m}) {
			t.Fatalf("feed merchants %v", merchants)
		}
		if feed[6].Environment != kassa.Mainnet {
			t.Fatalf("last event %+v, want the mainnet one", feed[6])
		}
		// Paging through the feed one event at a time gives the same order.
		pos := kassa.FeedPos{}
		for i := range feed {
			es, err := f.db.FeedAfter(f.ctx, pos, 1)
			must(t, err)
			if len(es) != 1 || es[0].ID != feed[i].ID || es[0].Pos != feed[i].Pos {
				t.Fatalf("step %d: %+v, want %s", i, es, feed[i].ID)
			}
			pos = es[0].Pos
		}
		if es, err := f.db.FeedAfter(f.ctx, pos, 10); err != nil || len(es) != 0 {
			t.Fatalf("after the last: %d events, %v", len(es), err)
		}

		// The merchant feed: one merchant, environment and scope.
		mf, err := f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, kassa.FeedPos{}, 100)
		must(t, err)
		if want := []string{feed[0].ID, feed[2].ID, feed[4].ID}; fmt.Sprint(eventIDs(mf)) != fmt.Sprint(want) {
			t.Fatalf("merchant feed %v, want %v", eventIDs(mf), want)
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, feed[2].Pos, 1)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != feed[4].ID {
			t.Fatalf("merchant feed after the second: %v", eventIDs(mf))
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Mainnet, kassa.ScopeMerchant, kassa.FeedPos{}, 100)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != feed[6].ID {
			t.Fatalf("mainnet merchant feed %v", eventIDs(mf))
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeCommerce, kassa.FeedPos{}, 100)
		must(t, err)
		if len(mf) != 0 {
			t.Fatalf("commerce feed shows %v", eventTypesOf(mf))
		}

		// The head: everything already read is at or before it; only later events
		// come after it.
		head, err := f.db.FeedHead(f.ctx)
		must(t, err)
		for _, e := range feed {
			if e.Pos.After(head) {
				t.Fatalf("event %+v read before the head %+v is after it", e.Pos, head)
			}
		}
		later := []*kassa.Invoice{f.invoice(t, other, 1000, nil), f.invoice(t, f.m, 1000, nil)}
		after := f.feedAll(t, head, 2)
		for i, e := range after {
			var obj struct{ ID string }
			must(t, json.Unmarshal(e.Data, &obj))
			if obj.ID != later[i].ID {
				t.Fatalf("after the head: event %d is about %s, want %s", i, obj.ID, later[i].ID)
			}
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, head, 100)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != after[1].ID {
			t.Fatalf("merchant feed after the head: %v", eventIDs(mf))
		}
		if head2, err := f.db.FeedHead(f.ctx); err != nil || after[1].Pos.After(head2) {
			t.Fatalf("head %+v did not pass %+v (%v)", head2, after[1].Pos, err)
		}
	})
}

// TestEventFeedConcurrentWriters checks the feed's promise under concurrent commits:
// a reader that always asks for what follows the last position it saw gets every
// event exactly once, in increasing position order. On PostgreSQL seq is taken at
// insert, not at commit, so this rests on the transaction-id horizon.
func TestEventFeedConcurrentWriters(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const writers, each = 8, 25
		merchants := []*kassa.Merchant{f.m, f.merchant(t, "b@example.com"), f.merchant(t, "c@example.com")}
		head, err := f.db.FeedHead(f.ctx)
		must(t, err)

		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					m := merchants[(w+i)%len(merchants)]
					if _, _, err := f.db.CreateInvoice(f.ctx, principal(m), kassa.InvoiceCreate{Amount: 1000}, nil); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()

		seen := map[string]int{}
		var order []kassa.FeedPos
		pos := head
		deadline := time.Now().Add(30 * time.Second)
		for len(order) < writers*each {
			es, err := f.db.FeedAfter(f.ctx, pos, 16)
			must(t, err)
			for _, e := range es {
				seen[e.ID]++
				if seen[e.ID] > 1 {
					t.Fatalf("event %s read twice", e.ID)
				}
				if !e.Pos.After(pos) {
					t.Fatalf("position %+v after %+v", e.Pos, pos)
				}
				order = append(order, e.Pos)
				pos = e.Pos
			}
			select {
			case err := <-errs:
				t.Fatal(err)
			default:
			}
			if len(es) == 0 {
				select {
				case <-done:
					if time.Now().After(deadline) {
						t.Fatalf("read %d of %d events", len(order), writers*each)
					}
					time.Sleep(2 * time.Millisecond)
				default:
				}
			}
		}
		<-done
		if es, err := f.db.FeedAfter(f.ctx, pos, 16); err != nil || len(es) != 0 {
			t.Fatalf("%d more events after all were read (%v)", len(es), err)
		}
		// Every committed event was read.
		total := 0
		for _, m := range merchants {
			for _, e := range f.merchantEvents(t, m) {
				total++
				if seen[e.ID] != 1 {
					t.Fatalf("event %s read %d times", e.ID, seen[e.ID])
				}
			}
		}
		if total != writers*each || len(seen) != total {
			t.Fatalf("%d events stored, %d read, want %d", total, len(seen), writers*each)
		}
	})
}

func TestPruneEvents(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep, err := f.db.CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/hook"), EnabledEvents: []string{"*"}})
		must(t, err)
		old := f.invoice(t, f.m, 1000, nil)
		// The old delivery has an attempt logged.
		jobs, err := f.db.ClaimWebhookJobs(f.ctx, 10, time.Minute)
		must(t, err)
		if len(jobs) != 1 {
			t.Fatalf("%d jobs", len(jobs))
		}
		must(t, f.db.FinishWebhookAttempt(f.ctx, jobs[0], kassa.WebhookAttempt{At: f.clock.Now(), StatusCode: 200, Succeeded: true},
			kassa.WebhookResult{StatusCode: 200}))

		f.clock.Advance(kassa.EventRetention)
		edge := f.invoice(t, f.m, 1000, nil) // exactly at the cutoff: kept
		f.clock.Advance(24 * time.Hour)
		recent := f.invoice(t, f.m, 1000, nil)
		cutoff := f.clock.Now().Add(-24 * time.Hour) // when edge was made

		n, err := f.db.PruneEvents(f.ctx, cutoff)
		must(t, err)
		if n != 1 {
			t.Fatalf("pruned %d events, want 1", n)
		}
		es := f.merchantEvents(t, f.m)
		if len(es) != 2 || !json.Valid(es[0].Data) || !containsObject(t, es, recent.ID) || !containsObject(t, es, edge.ID) ||
			containsObject(t, es, old.ID) {
			t.Fatalf("events left: %s", jsonOf(t, es))
		}
		ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID})
		must(t, err)
		if len(ds) != 2 || ds[0].EventID != es[0].ID || ds[1].EventID != es[1].ID {
			t.Fatalf("deliveries left: %s", jsonOf(t, ds))
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts"); n != 0 {
			t.Fatalf("%d attempts left of the pruned delivery", n)
		}
		// The invoice itself stays.
		if _, err := f.db.Invoice(f.ctx, f.m.ID, old.ID); err != nil {
			t.Fatalf("pruning took the invoice: %v", err)
		}
		if n, err := f.db.PruneEvents(f.ctx, cutoff); err != nil || n != 0 {
			t.Fatalf("second prune: %d, %v", n, err)
		}
	})
}

// containsObject reports whether one of the events is about the object with id.
func containsObject(t *testing.T, es []*kassa.Event, id string) bool {
	t.Helper()
	for _, e := range es {
		var obj struct{ ID string }
		must(t, json.Unmarshal(e.Data, &obj))
		if obj.ID == id {
			return true
		}
	}
	return false
}
