package store_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestCreateInvoiceSeesMerchantChanges checks that the merchant rows the create
// path caches never hide a change made through the store: new defaults apply to
// the next invoice at once, and so does mainnet access.
func TestCreateInvoiceSeesMerchantChanges(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		create := func(env kassa.Environment) (*kassa.Invoice, error) {
			t.Helper()
			p := principal(f.m)
			p.Environment = env
			inv, _, err := f.db.CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, nil)
			return inv, err
		}
		tests := []struct {
			name  string
			title string
		}{{"first", "Before"}, {"renamed", "After"}, {"renamed again", "Later"}}
		for _, tt := range tests {
			_, err := f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{CompanyName: &tt.title})
			must(t, err)
			inv, err := create(kassa.Devnet)
			must(t, err)
			if inv.InvoiceTitle != tt.title {
				t.Fatalf("%s: invoice title %q, want %q", tt.name, inv.InvoiceTitle, tt.title)
			}
		}
		_, err := create(kassa.Mainnet)
		wantErr(t, err, kassa.KindPermission, "mainnet_not_enabled")
		_, err = f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		if _, err := create(kassa.Mainnet); err != nil {
			t.Fatalf("mainnet create after access was granted: %v", err)
		}
	})
}
