package store_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// ids returns the ids of invs in order.
func ids(invs []*kassa.Invoice) []string {
	out := make([]string, len(invs))
	for i, inv := range invs {
		out[i] = inv.ID
	}
	return out
}

// newestFirst sorts invoices as the list does: created_at desc, then id desc by bytes.
func newestFirst(invs []*kassa.Invoice) []string {
	s := slices.Clone(invs)
	slices.SortFunc(s, func(a, b *kassa.Invoice) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return ids(s)
}

func TestInvoiceListFilters(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		a := f.invoice(t, f.m, 100, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("alice") })
		f.clock.Advance(time.Minute)
		b := f.invoice(t, f.m, 200, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("bob"); c.ExpiresIn = ptr(time.Minute) })
		f.clock.Advance(time.Minute)
		c := f.invoice(t, f.m, 300, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("alice") })
		_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), c.ID)
		must(t, err)
		f.clock.Advance(time.Minute)
		_, err = f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		p := principal(f.m)
		p.Environment = kassa.Mainnet
		d, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 400}, nil)
		must(t, err)
		other := f.merchant(t, "other@example.com")
		f.invoice(t, other, 500, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("alice") })
		// b expired one minute after creation; the clock is past that now.

		devnet, mainnet := kassa.Devnet, kassa.Mainnet
		tests := []struct {
			name string
			f    kassa.InvoiceFilter
			want []*kassa.Invoice
		}{
			{"all", kassa.InvoiceFilter{}, []*kassa.Invoice{d, c, b, a}},
			{"status unpaid", kassa.InvoiceFilter{Statuses: []kassa.InvoiceStatus{kassa.StatusUnpaid}}, []*kassa.Invoice{d, a}},
			{"status expired (effective)", kassa.InvoiceFilter{Statuses: []kassa.InvoiceStatus{kassa.StatusExpired}}, []*kassa.Invoice{b}},
			{"status expired or canceled", kassa.InvoiceFilter{Statuses: []kassa.InvoiceStatus{kassa.StatusExpired, kassa.StatusCanceled}}, []*kassa.Invoice{c, b}},
			{"status paid", kassa.InvoiceFilter{Statuses: []kassa.InvoiceStatus{kassa.StatusPaid}}, nil},
			{"type standard", kassa.InvoiceFilter{Types: []string{"standard"}}, []*kassa.Invoice{d, c, b, a}},
			{"type other", kassa.InvoiceFilter{Types: []string{"commerce"}}, nil},
			{"customer", kassa.InvoiceFilter{CustomerID: ptr("alice")}, []*kassa.Invoice{c, a}},
			{"devnet", kassa.InvoiceFilter{Environment: &devnet}, []*kassa.Invoice{c, b, a}},
			{"mainnet", kassa.InvoiceFilter{Environment: &mainnet}, []*kassa.Invoice{d}},
			{"created gte", kassa.InvoiceFilter{CreatedGTE: ptr(b.CreatedAt)}, []*kassa.Invoice{d, c, b}},
			{"created lte", kassa.InvoiceFilter{CreatedLTE: ptr(b.CreatedAt)}, []*kassa.Invoice{b, a}},
			{"created range", kassa.InvoiceFilter{CreatedGTE: ptr(b.CreatedAt), CreatedLTE: ptr(c.CreatedAt)}, []*kassa.Invoice{c, b}},
			{"combined", kassa.InvoiceFilter{CustomerID: ptr("alice"), Statuses: []kassa.InvoiceStatus{kassa.StatusUnpaid}, Environment: &devnet}, []*kassa.Invoice{a}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.MerchantID = f.m.ID
				got, more, err := f.db.Invoices(f.ctx, tt.f)
				must(t, err)
				if !slices.Equal(ids(got), ids(tt.want)) || more {
					t.Fatalf("got %v (has_more %v), want %v", ids(got), more, ids(tt.want))
				}
				for _, inv := range got {
					if inv.ID == b.ID && inv.Status != kassa.StatusExpired {
						t.Fatalf("listed status of expired invoice = %s", inv.Status)
					}
				}
			})
		}
	})
}

func TestInvoiceTotals(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		f.invoice(t, f.m, 100, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("alice") })
		f.invoice(t, f.m, 200, func(c *kassa.InvoiceCreate) { c.ExpiresIn = ptr(time.Minute) })
		c := f.invoice(t, f.m, 300, func(c *kassa.InvoiceCreate) { c.CustomerID = ptr("alice") })
		_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), c.ID)
		must(t, err)
		f.invoice(t, f.merchant(t, "other@example.com"), 999, nil)
		f.clock.Advance(time.Minute)

		tests := []struct {
			name string
			f    kassa.InvoiceTotalsFilter
			want map[kassa.InvoiceStatus]kassa.StatusTotal
		}{
			{"all", kassa.InvoiceTotalsFilter{}, map[kassa.InvoiceStatus]kassa.StatusTotal{
				kassa.StatusUnpaid: {Count: 1, Amount: 100}, kassa.StatusExpired: {Count: 1, Amount: 200},
				kassa.StatusCanceled: {Count: 1, Amount: 300}}},
			{"customer", kassa.InvoiceTotalsFilter{CustomerID: ptr("alice")}, map[kassa.InvoiceStatus]kassa.StatusTotal{
				kassa.StatusUnpaid: {Count: 1, Amount: 100}, kassa.StatusCanceled: {Count: 1, Amount: 300}}},
			{"mainnet", kassa.InvoiceTotalsFilter{Environment: ptr(kassa.Mainnet)}, nil},
			{"created after all", kassa.InvoiceTotalsFilter{CreatedGTE: ptr(t0.Add(time.Second))}, nil},
			{"created before now", kassa.InvoiceTotalsFilter{CreatedLTE: ptr(t0)}, map[kassa.InvoiceStatus]kassa.StatusTotal{
				kassa.StatusUnpaid: {Count: 1, Amount: 100}, kassa.StatusExpired: {Count: 1, Amount: 200},
				kassa.StatusCanceled: {Count: 1, Amount: 300}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.MerchantID = f.m.ID
				got, err := f.db.InvoiceTotals(f.ctx, tt.f)
				must(t, err)
				if len(got.ByStatus) != len(kassa.InvoiceStatuses) {
					t.Fatalf("totals have %d statuses, want all %d", len(got.ByStatus), len(kassa.InvoiceStatuses))
				}
				for _, s := range kassa.InvoiceStatuses {
					if got.ByStatus[s] != tt.want[s] {
						t.Fatalf("totals[%s] = %+v, want %+v", s, got.ByStatus[s], tt.want[s])
					}
				}
			})
		}
	})
}
