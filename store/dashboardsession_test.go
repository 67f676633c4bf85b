package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardSessions: a session is found by its token only, switches
// environment, ends at its TTL and on sign-out, and the token is not stored.
func TestDashboardSessions(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		token := kassa.NewDashboardToken()
		s, err := f.db.CreateDashboardSession(f.ctx, token, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		if err != nil || s.ExpiresAt.Sub(s.CreatedAt) != kassa.DashboardSessionTTL {
			t.Fatalf("create: %+v, %v", s, err)
		}
		got, err := f.db.DashboardSession(f.ctx, token)
		if err != nil || got.MerchantID != f.m.ID || got.Environment != kassa.Devnet || !got.ExpiresAt.Equal(s.ExpiresAt) {
			t.Fatalf("read: %+v, %v", got, err)
		}
		signedOut := func(token, when string) {
			t.Helper()
			if _, err := f.db.DashboardSession(f.ctx, token); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("%s: %v, want unauthenticated", when, err)
			}
		}
		signedOut(kassa.NewDashboardToken(), "another token")
		signedOut(token+"x", "a longer token")

		if err := f.db.SetDashboardEnvironment(f.ctx, token, kassa.Mainnet); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.db.DashboardSession(f.ctx, token); got.Environment != kassa.Mainnet {
			t.Fatalf("after the switch: %+v", got)
		}
		if err := f.db.SetDashboardEnvironment(f.ctx, "nope", kassa.Devnet); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
			t.Fatalf("switching an unknown session: %v", err)
		}

		other := kassa.NewDashboardToken()
		if _, err := f.db.CreateDashboardSession(f.ctx, other, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
			t.Fatal(err)
		}
		if err := f.db.DeleteDashboardSession(f.ctx, token); err != nil {
			t.Fatal(err)
		}
		signedOut(token, "after sign-out")
		if _, err := f.db.DashboardSession(f.ctx, other); err != nil {
			t.Fatalf("another browser's session ended with this one: %v", err)
		}
		f.clock.Advance(kassa.DashboardSessionTTL + time.Second)
		signedOut(other, "after the TTL")
		if err := f.db.DeleteDashboardSession(f.ctx, "unknown"); err != nil {
			t.Fatalf("deleting an unknown session: %v", err)
		}
	})
}

// TestChangePassword: the current password is checked, the new one works and the
// old one no longer does, and every dashboard session of the merchant ends.
func TestChangePassword(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		mine, theirs := kassa.NewDashboardToken(), kassa.NewDashboardToken()
		_, err := f.db.CreateDashboardSession(f.ctx, mine, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		must(t, err)
		_, err = f.db.CreateDashboardSession(f.ctx, theirs, other.ID, f.cv(t, other.ID), kassa.Devnet)
		must(t, err)
		if err := f.db.ChangePassword(f.ctx, f.m.ID, "wrong horse", "battery staple"); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
			t.Fatalf("a wrong current password: %v", err)
		}
		if err := f.db.ChangePassword(f.ctx, f.m.ID, "correct horse", "short"); kassa.AsError(err).Param != "new_password" {
			t.Fatalf("a short new password: %v", err)
		}
		must(t, f.db.ChangePassword(f.ctx, f.m.ID, "correct horse", "battery staple"))
		if _, err := f.db.Login(f.ctx, f.m.Email, "correct horse"); err == nil {
			t.Fatal("the old password still signs in")
		}
		if _, err := f.db.Login(f.ctx, f.m.Email, "battery staple"); err != nil {
			t.Fatalf("the new password: %v", err)
		}
		if _, err := f.db.DashboardSession(f.ctx, mine); err == nil {
			t.Fatal("a session outlived the password change")
		}
		if _, err := f.db.DashboardSession(f.ctx, theirs); err != nil {
			t.Fatalf("another merchant's session ended: %v", err)
		}
	})
}
