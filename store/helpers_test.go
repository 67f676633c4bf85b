package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// t0 is where every test clock starts; its nanoseconds check that stored times are
// truncated to microseconds consistently.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 123456789, time.UTC)

// fixture is an open store with a settable clock and one merchant.
type fixture struct {
	db    *store.DB
	clock *storetest.Clock
	m     *kassa.Merchant
	ctx   context.Context
}

// newFixture opens cfg with a test clock and creates a devnet-only merchant.
func newFixture(t *testing.T, cfg store.Config) *fixture {
	t.Helper()
	clock := storetest.NewClock(t0)
	cfg.Now = clock.Now
	f := &fixture{db: storetest.Open(t, cfg), clock: clock, ctx: context.Background()}
	f.m = f.merchant(t, "owner@example.com")
	return f
}

// merchant creates a merchant with the given email.
func (f *fixture) merchant(t *testing.T, email string) *kassa.Merchant {
	t.Helper()
	m, err := f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "Shop " + email, Email: email, Password: "correct horse"})
	if err != nil {
		t.Fatalf("CreateMerchant(%s): %v", email, err)
	}
	return m
}

// principal is a devnet API principal of merchant m.
func principal(m *kassa.Merchant) kassa.Principal {
	return kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
}

// invoice creates a devnet invoice of amount millis for merchant m.
func (f *fixture) invoice(t *testing.T, m *kassa.Merchant, amount kassa.Millis, mod func(*kassa.InvoiceCreate)) *kassa.Invoice {
	t.Helper()
	c := kassa.InvoiceCreate{Amount: amount}
	if mod != nil {
		mod(&c)
	}
	inv, _, err := f.db.CreateInvoice(f.ctx, principal(m), c, nil)
	if err != nil {
		t.Fatalf("CreateInvoice: %v", err)
	}
	return inv
}

// wantErr checks that err is a *kassa.Error of the given kind and code.
func wantErr(t *testing.T, err error, kind kassa.ErrorKind, code string) {
	t.Helper()
	var e *kassa.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *kassa.Error %s/%s", err, kind, code)
	}
	if e.Kind != kind || e.Code != code {
		t.Fatalf("error = %s/%s (%v), want %s/%s", e.Kind, e.Code, e, kind, code)
	}
}

// must fails the test on a non-nil error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// recentEvents returns the fixture merchant's latest n devnet events of merchant
// scope, newest first.
func (f *fixture) recentEvents(n int) ([]*kassa.Event, error) {
	es, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet,
		Scope: kassa.ScopeMerchant, Limit: n})
	return es, err
}

// cv is merchant id's credential version now: what a sign-in would observe.
func (f *fixture) cv(t *testing.T, id int64) int64 {
	t.Helper()
	m, err := f.db.Merchant(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m.CredentialVersion
}
