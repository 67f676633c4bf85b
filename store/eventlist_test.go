package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

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
		_, err = invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), invs[1].ID) // invoice.canceled, invoice.updated
		must(t, err)
		foreign := f.invoice(t, other, 1000, nil)
		mp := principal(f.m)
		mp.Environment = kassa.Mainnet
		_, _, err = invoicing.Over(f.db).CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
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
