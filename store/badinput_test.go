package store_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestBadInputIsNeverInternal checks input that passes the domain validation but no
// TEXT column can hold (invalid UTF-8, NUL): every engine answers with a client error,
// never an internal one.
func TestBadInputIsNeverInternal(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		bad := "a\xffb"
		p := principal(f.m)
		tests := []struct {
			name string
			call func() error
			kind kassa.ErrorKind
			code string
		}{
			{"metadata not utf-8", func() error {
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 100, Metadata: []byte(`{"a":"` + bad + `"}`)}, nil)
				return err
			}, kassa.KindInvalid, "invalid_metadata"},
			{"mainnet invoice without mainnet access", func() error {
				mp := p
				mp.Environment = kassa.Mainnet
				_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 100}, nil)
				return err
			}, kassa.KindPermission, "mainnet_not_enabled"},
			{"password over 72 bytes", func() error {
				_, err := f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "n", Email: "long@example.com", Password: strings.Repeat("é", 40)})
				return err
			}, kassa.KindInvalid, "invalid_password"},
			{"login email not utf-8", func() error {
				_, err := f.db.Login(f.ctx, bad, "x")
				return err
			}, kassa.KindUnauthenticated, "invalid_credentials"},
			{"merchant by email with NUL", func() error {
				_, err := f.db.MerchantByEmail(f.ctx, "a\x00@b.example")
				return err
			}, kassa.KindNotFound, "resource_missing"},
			{"invoice id not utf-8", func() error {
				_, err := f.db.Invoice(f.ctx, f.m.ID, bad)
				return err
			}, kassa.KindNotFound, "resource_missing"},
			{"cancel id not utf-8", func() error {
				_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), bad)
				return err
			}, kassa.KindNotFound, "resource_missing"},
			{"cursor not utf-8", func() error {
				_, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, EndingBefore: bad})
				return err
			}, kassa.KindInvalid, "invalid_cursor"},
			{"customer filter with NUL", func() error {
				_, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, CustomerID: ptr("a\x00")})
				return err
			}, kassa.KindInvalid, "invalid_customer_id"},
			{"totals customer not utf-8", func() error {
				_, err := f.db.InvoiceTotals(f.ctx, kassa.InvoiceTotalsFilter{MerchantID: f.m.ID, CustomerID: ptr(bad)})
				return err
			}, kassa.KindInvalid, "invalid_customer_id"},
			{"type filter not utf-8", func() error {
				_, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Types: []string{bad}})
				return err
			}, kassa.KindInvalid, "invalid_invoice_type"},
			{"revoke key id not utf-8", func() error {
				_, err := f.db.RevokeAPIKey(f.ctx, f.m.ID, bad, "")
				return err
			}, kassa.KindNotFound, "resource_missing"},
			{"idempotency key not utf-8", func() error {
				_, err := f.db.ClaimIdempotencyKey(f.ctx, kassa.IdempotencyScope{MerchantID: f.m.ID, Environment: kassa.Devnet, Route: "POST /x", Key: bad}, "fp")
				return err
			}, kassa.KindInvalid, "invalid_idempotency_key"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, tt.call(), tt.kind, tt.code)
			})
		}
	})
}
