package merchants_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// newService is the service over a store of cfg, with one merchant.
func newService(t *testing.T, cfg store.Config) (*merchants.Service, *store.DB, *kassa.Merchant) {
	t.Helper()
	db := storetest.Open(t, cfg)
	svc := merchants.New(db, signin.New(db, db, time.Now))
	m, err := svc.Create(context.Background(), kassa.MerchantCreate{Name: "Acme", Email: "Sales@Acme.Example",
		Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, db, m
}

// wantCode checks that err is a kassa error of code and param.
func wantCode(t *testing.T, err error, code, param string) {
	t.Helper()
	if e := kassa.AsError(err); err == nil || e.Code != code || e.Param != param {
		t.Fatalf("error %v, want %s (param %q)", err, code, param)
	}
}

// TestCreate: a new account is checked, and its email kept in one form, so
// another spelling of it is taken.
func TestCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		svc, db, m := newService(t, cfg)
		if m.Email != "sales@acme.example" || m.CompanyName != "Acme" {
			t.Fatalf("created %+v, want the email normalised and the company named", m)
		}
		if got, err := db.MerchantByEmail(context.Background(), "sales@acme.example"); err != nil || got.ID != m.ID {
			t.Fatalf("stored under %v: %v", got, err)
		}
		for _, tc := range []struct {
			name        string
			c           kassa.MerchantCreate
			code, param string
		}{
			{"another spelling of a taken email", kassa.MerchantCreate{Name: "B", Email: "SALES@ACME.EXAMPLE", Password: "hunter2hunter2"}, "email_taken", "email"},
			{"bad email", kassa.MerchantCreate{Name: "B", Email: "nope", Password: "hunter2hunter2"}, "invalid_email", "email"},
			{"short password", kassa.MerchantCreate{Name: "B", Email: "b@b.example", Password: "short"}, "invalid_password", "password"},
			{"no name", kassa.MerchantCreate{Name: " ", Email: "b@b.example", Password: "hunter2hunter2"}, "invalid_name", "name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := svc.Create(context.Background(), tc.c)
				wantCode(t, err, tc.code, tc.param)
			})
		}
	})
}

// TestUpdate: bad input is refused before any proof is asked; the email, a
// settlement target and the tolerance need the password, other changes none; a
// new email is kept normalised.
func TestUpdate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		svc, _, m := newService(t, cfg)
		ctx := context.Background()
		target := &kassa.Settlement{Network: "bsc", TokenSymbol: "USDT", Address: "0x52908400098527886E0F7030069857D2E4169EE7"}
		tol := kassa.Millis(500)
		for _, tc := range []struct {
			name        string
			u           kassa.MerchantUpdate
			p           signin.Proof
			code, param string
		}{
			{"bad return URL, no proof", kassa.MerchantUpdate{DefaultReturnURL: ptr("http://insecure.example")}, signin.Proof{}, "invalid_url", "default_return_url"},
			{"bad email, no proof", kassa.MerchantUpdate{Email: ptr("nope")}, signin.Proof{}, "invalid_email", "email"},
			{"email without proof", kassa.MerchantUpdate{Email: ptr("new@acme.example")}, signin.Proof{}, "reauthentication_required", "current_password"},
			{"settlement with a wrong password", kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: target}},
				signin.Proof{Password: "wrong horse"}, "invalid_current_password", "current_password"},
			{"tolerance without proof", kassa.MerchantUpdate{UnderpaymentToleranceMillis: &tol}, signin.Proof{}, "reauthentication_required", "current_password"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := svc.Update(ctx, m.ID, tc.u, tc.p)
				wantCode(t, err, tc.code, tc.param)
			})
		}
		got, err := svc.Update(ctx, m.ID, kassa.MerchantUpdate{CompanyName: ptr("Acme GmbH")}, signin.Proof{})
		if err != nil || got.CompanyName != "Acme GmbH" {
			t.Fatalf("a change that needs no proof: %+v, %v", got, err)
		}
		got, err = svc.Update(ctx, m.ID, kassa.MerchantUpdate{Email: ptr("New@Acme.Example"), UnderpaymentToleranceMillis: &tol},
			signin.Proof{Password: "correct horse"})
		if err != nil || got.Email != "new@acme.example" || got.UnderpaymentToleranceMillis != tol {
			t.Fatalf("a sensitive change with the password: %+v, %v", got, err)
		}
	})
}

// TestEnableMainnet: mainnet access is granted once; asked again, the merchant
// is answered as it is.
func TestEnableMainnet(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		svc, _, m := newService(t, cfg)
		for range 2 {
			got, err := svc.EnableMainnet(context.Background(), m.ID)
			if err != nil || !got.Allows(kassa.Mainnet) {
				t.Fatalf("EnableMainnet: %+v, %v", got, err)
			}
		}
		if _, err := svc.EnableMainnet(context.Background(), m.ID+1000); kassa.ErrorKindOf(err) != kassa.KindNotFound {
			t.Fatalf("EnableMainnet of nobody: %v, want not found", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }
