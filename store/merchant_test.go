package store_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestMerchantCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		m, err := f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "Acme", Email: "sales@acme.example", Password: "hunter2hunter2", MainnetEnabled: true})
		must(t, err)
		if m.ID == 0 || m.Email != "sales@acme.example" || m.CompanyName != "Acme" || !m.MainnetEnabled || !m.CreatedAt.Equal(t0.Truncate(1000)) {
			t.Fatalf("created merchant = %+v", m)
		}
		got, err := f.db.Merchant(f.ctx, m.ID)
		must(t, err)
		if got.Email != m.Email || got.Name != "Acme" || !got.CreatedAt.Equal(m.CreatedAt) || got.Settlement == nil {
			t.Fatalf("Merchant = %+v, want %+v", got, m)
		}
		byEmail, err := f.db.MerchantByEmail(f.ctx, "SALES@acme.example")
		must(t, err)
		if byEmail.ID != m.ID {
			t.Fatalf("MerchantByEmail id = %d, want %d", byEmail.ID, m.ID)
		}

		tests := []struct {
			name string
			c    kassa.MerchantCreate
			kind kassa.ErrorKind
			code string
		}{
			{"duplicate email", kassa.MerchantCreate{Name: "B", Email: "sales@acme.example", Password: "hunter2hunter2"}, kassa.KindConflict, "email_taken"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := f.db.CreateMerchant(f.ctx, tt.c)
				wantErr(t, err, tt.kind, tt.code)
			})
		}
		_, err = f.db.Merchant(f.ctx, 999999)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		_, err = f.db.MerchantByEmail(f.ctx, "nobody@example.com")
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

func TestMerchantLogin(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		tests := []struct {
			name, email, password string
			ok                    bool
		}{
			{"ok", "owner@example.com", "correct horse", true},
			{"ok other case", "Owner@Example.com", "correct horse", true},
			{"wrong password", "owner@example.com", "wrong horse", false},
			{"unknown email", "ghost@example.com", "correct horse", false},
			{"empty", "", "", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				m, err := f.db.Login(f.ctx, tt.email, tt.password)
				if tt.ok {
					must(t, err)
					if m.ID != f.m.ID {
						t.Fatalf("Login id = %d, want %d", m.ID, f.m.ID)
					}
					return
				}
				wantErr(t, err, kassa.KindUnauthenticated, "invalid_credentials")
			})
		}
	})
}

func TestMerchantUpdate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		addr := "0x52908400098527886E0F7030069857D2E4169EE7"
		devnet := &kassa.Settlement{Network: "bsc", TokenSymbol: "USDT", Address: addr}
		m, err := f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{
			CompanyName:                 ptr("Acme GmbH"),
			DefaultReturnURL:            ptr("https://acme.example/thanks"),
			Settlement:                  map[kassa.Environment]*kassa.Settlement{kassa.Devnet: devnet},
			UnderpaymentToleranceMillis: ptr(kassa.Millis(500)),
		})
		must(t, err)
		check := func(t *testing.T, m *kassa.Merchant, company string, url *string, settle bool, tol kassa.Millis) {
			t.Helper()
			if m.CompanyName != company || (url == nil) != (m.DefaultReturnURL == nil) ||
				(url != nil && *url != *m.DefaultReturnURL) || m.UnderpaymentToleranceMillis != tol {
				t.Fatalf("merchant = %+v", m)
			}
			if s, ok := m.Settlement[kassa.Devnet]; ok != settle || (settle && s != *devnet) {
				t.Fatalf("settlement = %+v, want set=%v", m.Settlement, settle)
			}
		}
		check(t, m, "Acme GmbH", ptr("https://acme.example/thanks"), true, 500)
		got, err := f.db.Merchant(f.ctx, f.m.ID)
		must(t, err)
		check(t, got, "Acme GmbH", ptr("https://acme.example/thanks"), true, 500)

		// A partial update leaves the rest alone; "" clears the return URL; nil clears a settlement.
		m, err = f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{DefaultReturnURL: ptr("")})
		must(t, err)
		check(t, m, "Acme GmbH", nil, true, 500)
		m, err = f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: nil}})
		must(t, err)
		check(t, m, "Acme GmbH", nil, false, 500)
		got, err = f.db.Merchant(f.ctx, f.m.ID)
		must(t, err)
		check(t, got, "Acme GmbH", nil, false, 500)

		_, err = f.db.UpdateMerchant(f.ctx, 424242, kassa.MerchantUpdate{CompanyName: ptr("X")})
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

func TestEnableMainnet(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		if f.m.MainnetEnabled {
			t.Fatal("new merchant has mainnet enabled")
		}
		m, err := f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		if !m.MainnetEnabled {
			t.Fatal("EnableMainnet did not enable mainnet")
		}
		got, err := f.db.Merchant(f.ctx, f.m.ID)
		must(t, err)
		if !got.MainnetEnabled {
			t.Fatal("mainnet not enabled after reload")
		}
		_, err = f.db.EnableMainnet(f.ctx, 424242)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}
