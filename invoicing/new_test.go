package invoicing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func strp(s string) *string { return &s }

// code returns err's error code, "" for nil.
func code(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *kassa.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *kassa.Error", err)
	}
	return e.Code
}

func TestNewDefaultsAndGate(t *testing.T) {
	shop := &kassa.Merchant{ID: 7, CompanyName: "Shop", DefaultReturnURL: strp("https://shop.example/back")}
	live := &kassa.Merchant{ID: 8, CompanyName: "Live", MainnetEnabled: true}
	hour := time.Hour
	off := false
	for _, tc := range []struct {
		name     string
		m        *kassa.Merchant
		env      kassa.Environment
		c        kassa.InvoiceCreate
		code     string
		title    string
		expires  time.Time
		url      *string
		urlOn    bool
		metadata string
	}{
		{name: "devnet defaults", m: shop, env: kassa.Devnet, c: kassa.InvoiceCreate{Amount: 1000},
			title: "Shop", expires: now.Add(kassa.DefaultInvoiceTTL), url: shop.DefaultReturnURL, urlOn: true, metadata: "{}"},
		{name: "mainnet refused", m: shop, env: kassa.Mainnet, c: kassa.InvoiceCreate{Amount: 1000}, code: "mainnet_not_enabled"},
		{name: "mainnet allowed", m: live, env: kassa.Mainnet, c: kassa.InvoiceCreate{Amount: 1000},
			title: "Live", expires: now.Add(kassa.DefaultInvoiceTTL), urlOn: true, metadata: "{}"},
		{name: "request overrides", m: shop, env: kassa.Devnet, c: kassa.InvoiceCreate{Amount: 1000, ExpiresIn: &hour,
			InvoiceTitle: strp("Title"), PaymentReturnURL: strp("https://x.example/"), PaymentReturnURLEnabled: &off,
			Metadata: []byte(`{"a":1}`)},
			title: "Title", expires: now.Add(time.Hour), url: strp("https://x.example/"), metadata: `{"a":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := invoicing.New(tc.m, tc.env, tc.c, now)
			if got := code(t, err); got != tc.code {
				t.Fatalf("code %q, want %q", got, tc.code)
			}
			if err != nil {
				return
			}
			if inv.MerchantID != tc.m.ID || inv.Environment != tc.env || inv.Status != kassa.StatusUnpaid || inv.Amount != tc.c.Amount {
				t.Errorf("invoice %+v: wrong merchant, environment, status or amount", inv)
			}
			if inv.InvoiceTitle != tc.title || inv.InvoiceFooter != tc.m.CompanyName {
				t.Errorf("title %q footer %q, want %q and %q", inv.InvoiceTitle, inv.InvoiceFooter, tc.title, tc.m.CompanyName)
			}
			if !inv.ExpiresAt.Equal(tc.expires) || !inv.CreatedAt.Equal(now) {
				t.Errorf("expires %v created %v, want %v and %v", inv.ExpiresAt, inv.CreatedAt, tc.expires, now)
			}
			if (inv.PaymentReturnURL == nil) != (tc.url == nil) || tc.url != nil && *inv.PaymentReturnURL != *tc.url ||
				inv.PaymentReturnURLEnabled != tc.urlOn {
				t.Errorf("return URL %v (enabled %v), want %v (%v)", inv.PaymentReturnURL, inv.PaymentReturnURLEnabled, tc.url, tc.urlOn)
			}
			if string(inv.Metadata) != tc.metadata {
				t.Errorf("metadata %s, want %s", inv.Metadata, tc.metadata)
			}
		})
	}
}

// fakeStore records what the service asks of it.
type fakeStore struct {
	invoicing.Store // the reads, unused here
	unstorable      bool
	merchant        *kassa.Merchant
	asked           []string
	inserted        *kassa.Invoice
}

func (f *fakeStore) CheckStorable(kassa.InvoiceCreate) error {
	f.asked = append(f.asked, "storable")
	if f.unstorable {
		return kassa.Invalidf("description", "invalid_description", "description must be valid UTF-8 text.")
	}
	return nil
}

func (f *fakeStore) InvoiceMerchant(_ context.Context, id int64, _ kassa.Environment) (*kassa.Merchant, error) {
	f.asked = append(f.asked, "merchant")
	if f.merchant == nil || f.merchant.ID != id {
		return nil, kassa.NotFound("merchant")
	}
	return f.merchant, nil
}

func (f *fakeStore) InsertInvoice(_ context.Context, inv *kassa.Invoice, _ string, _ *kassa.SavedResponse[kassa.CreatedInvoice]) error {
	f.asked = append(f.asked, "insert")
	f.inserted = inv
	return nil
}

func (f *fakeStore) Now() time.Time { return now }

func TestCreateInvoiceOrder(t *testing.T) {
	shop := &kassa.Merchant{ID: 7, CompanyName: "Shop"}
	for _, tc := range []struct {
		name  string
		store *fakeStore
		p     kassa.Principal
		c     kassa.InvoiceCreate
		code  string
		asked string
	}{
		{name: "stored", store: &fakeStore{merchant: shop}, p: kassa.Principal{MerchantID: 7, Environment: kassa.Devnet},
			c: kassa.InvoiceCreate{Amount: 1000}, asked: "storable merchant insert"},
		{name: "invalid request asks nothing", store: &fakeStore{merchant: shop}, p: kassa.Principal{MerchantID: 7, Environment: kassa.Devnet},
			c: kassa.InvoiceCreate{Amount: -1}, code: "amount_out_of_range"},
		{name: "bad environment asks nothing", store: &fakeStore{merchant: shop}, p: kassa.Principal{MerchantID: 7, Environment: "testnet"},
			c: kassa.InvoiceCreate{Amount: 1000}, code: "invalid_environment"},
		{name: "unstorable before the merchant", store: &fakeStore{merchant: shop, unstorable: true},
			p: kassa.Principal{MerchantID: 7, Environment: kassa.Mainnet}, c: kassa.InvoiceCreate{Amount: 1000},
			code: "invalid_description", asked: "storable"},
		{name: "mainnet gate before the insert", store: &fakeStore{merchant: shop}, p: kassa.Principal{MerchantID: 7, Environment: kassa.Mainnet},
			c: kassa.InvoiceCreate{Amount: 1000}, code: "mainnet_not_enabled", asked: "storable merchant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, token, err := invoicing.Over(tc.store).CreateInvoice(context.Background(), tc.p, tc.c, nil)
			if got := code(t, err); got != tc.code {
				t.Fatalf("code %q, want %q", got, tc.code)
			}
			if got := strings.Join(tc.store.asked, " "); got != tc.asked {
				t.Errorf("asked the store %q, want %q", got, tc.asked)
			}
			if err == nil && (tc.store.inserted != inv || token == "") {
				t.Errorf("returned %p with token %q, stored %p", inv, token, tc.store.inserted)
			}
		})
	}
}
