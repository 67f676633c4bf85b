package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// pageForward pages through the merchant's invoices with limit, forward with
// starting_after from the newest, and returns the ids in order.
func pageForward(t *testing.T, f *fixture, limit int) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		page, more, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: limit, StartingAfter: cursor})
		must(t, err)
		out = append(out, ids(page)...)
		if !more {
			return out
		}
		if len(page) != limit {
			t.Fatalf("has_more with a short page of %d", len(page))
		}
		cursor = page[len(page)-1].ID
	}
	t.Fatal("paging did not end")
	return nil
}

// pageBackward pages with ending_before from the oldest invoice towards the newest
// and returns the ids newest first (the oldest itself is not included).
func pageBackward(t *testing.T, f *fixture, limit int, oldest string) []string {
	t.Helper()
	var out []string
	cursor := oldest
	for range 100 {
		page, more, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: limit, EndingBefore: cursor})
		must(t, err)
		out = append(ids(page), out...)
		if !more {
			return out
		}
		cursor = page[0].ID
	}
	t.Fatal("paging did not end")
	return nil
}

func TestInvoiceCursorsWithTies(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		var all []*kassa.Invoice
		// Three groups of invoices that share a created_at, so ids break the ties.
		for _, group := range []int{9, 12, 6} {
			for range group {
				all = append(all, f.invoice(t, f.m, 100, nil))
			}
			f.clock.Advance(time.Millisecond)
		}
		f.invoice(t, f.merchant(t, "other@example.com"), 100, nil)
		want := newestFirst(all)

		full, more, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 100})
		must(t, err)
		if !slices.Equal(ids(full), want) || more {
			t.Fatalf("full list order differs:\n got %v\nwant %v", ids(full), want)
		}
		for _, limit := range []int{1, 4, 7, 26, 27, 50} {
			if got := pageForward(t, f, limit); !slices.Equal(got, want) {
				t.Fatalf("forward limit %d:\n got %v\nwant %v", limit, got, want)
			}
			if got := pageBackward(t, f, limit, want[len(want)-1]); !slices.Equal(got, want[:len(want)-1]) {
				t.Fatalf("backward limit %d:\n got %v\nwant %v", limit, got, want[:len(want)-1])
			}
		}
	})
}

func TestInvoiceCursorPages(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		var all []*kassa.Invoice
		for range 5 {
			all = append(all, f.invoice(t, f.m, 100, nil))
			f.clock.Advance(time.Second)
		}
		want := newestFirst(all) // 4 3 2 1 0 by creation
		tests := []struct {
			name     string
			f        kassa.InvoiceFilter
			want     []string
			wantMore bool
		}{
			{"first page", kassa.InvoiceFilter{Limit: 2}, want[:2], true},
			{"exact fit", kassa.InvoiceFilter{Limit: 5}, want, false},
			{"after newest", kassa.InvoiceFilter{Limit: 2, StartingAfter: want[0]}, want[1:3], true},
			{"after second last", kassa.InvoiceFilter{Limit: 2, StartingAfter: want[3]}, want[4:], false},
			{"after oldest", kassa.InvoiceFilter{Limit: 2, StartingAfter: want[4]}, nil, false},
			{"before oldest", kassa.InvoiceFilter{Limit: 2, EndingBefore: want[4]}, want[2:4], true},
			{"before second", kassa.InvoiceFilter{Limit: 2, EndingBefore: want[1]}, want[:1], false},
			{"before newest", kassa.InvoiceFilter{Limit: 2, EndingBefore: want[0]}, nil, false},
			{"default limit", kassa.InvoiceFilter{}, want, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.MerchantID = f.m.ID
				got, more, err := f.db.Invoices(f.ctx, tt.f)
				must(t, err)
				if !slices.Equal(ids(got), tt.want) || more != tt.wantMore {
					t.Fatalf("got %v more=%v, want %v more=%v", ids(got), more, tt.want, tt.wantMore)
				}
			})
		}
	})
}

func TestInvoiceInvalidCursor(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		f.invoice(t, f.m, 100, nil)
		foreign := f.invoice(t, f.merchant(t, "other@example.com"), 100, nil)
		for _, id := range []string{kassa.NewUUID(), foreign.ID, "garbage"} {
			for _, param := range []string{"starting_after", "ending_before"} {
				t.Run(param+"="+id, func(t *testing.T) {
					flt := kassa.InvoiceFilter{MerchantID: f.m.ID}
					if param == "starting_after" {
						flt.StartingAfter = id
					} else {
						flt.EndingBefore = id
					}
					_, _, err := f.db.Invoices(f.ctx, flt)
					wantErr(t, err, kassa.KindInvalid, "invalid_cursor")
					if p := kassa.AsError(err).Param; p != param {
						t.Fatalf("param = %q, want %q", p, param)
					}
				})
			}
		}
	})
}
