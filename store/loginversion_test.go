package store_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestLoginObservesCredentialVersion: a credential change that lands between a
// sign-in's password check and what it mints leaves the sign-in with the version
// it observed: a JWT of it is stale, and a session or half sign-in of it is not
// created (signed out). A half sign-in's version carries into its full session
// the same way.
func TestLoginObservesCredentialVersion(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		for _, tc := range []struct {
			name string
			bump func() error
		}{
			{"sign out everywhere", func() error { return f.db.SignOutEverywhere(f.ctx, f.m.ID) }},
			{"two-step on", func() error { return f.db.EnableTOTP(f.ctx, f.m.ID, "JBSWY3DPEHPK3PXP", 1) }},
			{"two-step off", func() error { return f.db.DisableTOTP(f.ctx, f.m.ID) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := f.cv(t, f.m.ID)
				store.AfterPasswordCheck(f.db, func() {
					store.AfterPasswordCheck(f.db, nil)
					if err := tc.bump(); err != nil {
						t.Error(err)
					}
				})
				m, err := f.db.Login(f.ctx, f.m.Email, "correct horse")
				if err != nil {
					t.Fatal(err)
				}
				if now := f.cv(t, f.m.ID); m.CredentialVersion != before || now != before+1 {
					t.Fatalf("login observed version %d (before %d, now %d): a JWT of it would be current", m.CredentialVersion, before, now)
				}
				if _, err := f.db.CreateDashboardSession(f.ctx, kassa.NewDashboardToken(), m.ID, m.CredentialVersion, kassa.Devnet); kassa.ErrorCode(err) != "session_ended" {
					t.Fatalf("a session under the observed version: %v, want session_ended", err)
				}
				if _, err := f.db.CreateDashboardSignIn(f.ctx, kassa.NewDashboardToken(), m.ID, m.CredentialVersion, kassa.Devnet); kassa.ErrorCode(err) != "session_ended" {
					t.Fatalf("a half sign-in under the observed version: %v, want session_ended", err)
				}

				// A half sign-in made before a change does not become a session after it.
				token := kassa.NewDashboardToken()
				if _, err := f.db.CreateDashboardSignIn(f.ctx, token, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
					t.Fatal(err)
				}
				half, err := f.db.DashboardSignIn(f.ctx, token)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.db.SignOutEverywhere(f.ctx, f.m.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := f.db.CreateDashboardSession(f.ctx, kassa.NewDashboardToken(), half.MerchantID, half.CredentialVersion, half.Environment); kassa.ErrorCode(err) != "session_ended" {
					t.Fatalf("a session from a half sign-in of the old version: %v, want session_ended", err)
				}
				// Without a change in between, both work.
				m, err = f.db.Login(f.ctx, f.m.Email, "correct horse")
				if err != nil || m.CredentialVersion != f.cv(t, f.m.ID) {
					t.Fatalf("a plain login: %+v, %v", m, err)
				}
				if _, err := f.db.CreateDashboardSession(f.ctx, kassa.NewDashboardToken(), m.ID, m.CredentialVersion, kassa.Devnet); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}
