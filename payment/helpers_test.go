package payment_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// t0 is where every test clock starts.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// fixture is the payment service over a real store, registry, rate table and
// wallets, with one merchant that may use mainnet, and a clock store and service
// share.
type fixture struct {
	ctx     context.Context
	db      *store.DB
	clock   *storetest.Clock
	reg     *registry.Registry
	rates   *registry.Static
	wallets map[kassa.Environment]payment.AddressDeriver
	svc     *payment.Service
	m       *kassa.Merchant
}

func newFixture(t *testing.T, cfg store.Config) *fixture {
	t.Helper()
	clock := storetest.NewClock(t0)
	cfg.Now = clock.Now
	f := &fixture{ctx: context.Background(), db: storetest.Open(t, cfg), clock: clock, reg: registry.Default(),
		wallets: map[kassa.Environment]payment.AddressDeriver{}}
	rates, err := registry.LoadStatic("", t0)
	if err != nil {
		t.Fatal(err)
	}
	f.rates = rates
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		w, err := hdwallet.LoadOrCreate(t.TempDir(), env, storetest.Secrets)
		if err != nil {
			t.Fatal(err)
		}
		f.wallets[env] = w
	}
	f.svc = &payment.Service{Registry: f.reg, Rates: f.rates, Addresses: f.db, Wallets: f.wallets,
		Invoices: invoicing.Over(f.db), Payments: f.db, Now: clock.Now, Chain: watching{"bsc", "ethereum"}}
	f.m, err = f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "Shop", Email: "owner@example.com",
		Password: "correct horse", MainnetEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// invoice creates an invoice of amount millis in env; mod may change the request.
func (f *fixture) invoice(t *testing.T, env kassa.Environment, amount kassa.Millis, mod func(*kassa.InvoiceCreate)) *kassa.Invoice {
	t.Helper()
	c := kassa.InvoiceCreate{Amount: amount}
	if mod != nil {
		mod(&c)
	}
	p := kassa.Principal{MerchantID: f.m.ID, Environment: env, Scope: kassa.ScopeMerchant}
	inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, c, nil)
	if err != nil {
		t.Fatalf("CreateInvoice: %v", err)
	}
	return inv
}

// reload reads inv again from the store.
func (f *fixture) reload(t *testing.T, inv *kassa.Invoice) *kassa.Invoice {
	t.Helper()
	got, err := f.db.Invoice(f.ctx, inv.MerchantID, inv.ID)
	if err != nil {
		t.Fatalf("Invoice(%s): %v", inv.ID, err)
	}
	return got
}

// lock asks for inv's address in tokenID and fails the test on error.
func (f *fixture) lock(t *testing.T, inv *kassa.Invoice, tokenID int64) payment.Quote {
	t.Helper()
	q, err := f.svc.LockAddress(f.ctx, inv, tokenID)
	if err != nil {
		t.Fatalf("LockAddress(token %d): %v", tokenID, err)
	}
	return q
}

// devnetPay makes a devnet payment and fails the test on error.
func (f *fixture) devnetPay(t *testing.T, inv *kassa.Invoice, req payment.DevnetPayment) (*kassa.Payment, *kassa.Invoice) {
	t.Helper()
	rec, got, err := f.svc.DevnetPay(f.ctx, inv.MerchantID, inv.ID, req)
	if err != nil {
		t.Fatalf("DevnetPay: %v", err)
	}
	return rec, got
}

// token is a registry token that must exist.
func (f *fixture) token(t *testing.T, env kassa.Environment, id int64) kassa.Token {
	t.Helper()
	tok, ok := f.reg.Token(env, id)
	if !ok {
		t.Fatalf("registry has no %s token %d", env, id)
	}
	return tok
}

// owedUnits is what amount millis comes to in tok at the static table's rate.
func (f *fixture) owedUnits(t *testing.T, tok kassa.Token, amount kassa.Millis) string {
	t.Helper()
	rate, err := f.rates.Rate(f.ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	return kassa.TokenUnits(amount, tok.Decimals, rate.USDPerToken).String()
}

// wantError checks that err is a kassa error of kind, code and param.
func wantError(t *testing.T, err error, kind kassa.ErrorKind, code, param string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s %s", kind, code)
	}
	if got := kassa.ErrorKindOf(err); got != kind {
		t.Fatalf("error kind %q (%v), want %q", got, err, kind)
	}
	if e := kassa.AsError(err); e.Code != code || e.Param != param {
		t.Fatalf("error %q param %q, want %q param %q", e.Code, e.Param, code, param)
	}
}

// txHash is a valid transaction hash made of one repeated hex digit.
func txHash(digit byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = digit
	}
	return "0x" + string(b)
}

// watching stands for the chain watchers of a deployment with RPC endpoints for
// the networks named: Service only asks which networks are watched.
type watching []string

func (w watching) Watched(_ kassa.Environment, network string) bool {
	for _, n := range w {
		if n == network {
			return true
		}
	}
	return false
}

func (watching) VerifyTransaction(context.Context, *kassa.Invoice, string, string) error { return nil }
