package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestSecondFactor: the factor is off until enabled, a step is accepted once and
// only forward of the enrolment's, another merchant is untouched, a second
// enrolment is a conflict, and turning it off forgets the secret.
func TestSecondFactor(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		secretOf := func(id int64, want string) {
			t.Helper()
			if got, err := f.db.TOTPSecret(f.ctx, id); err != nil || got != want {
				t.Fatalf("secret of %d: %q, %v; want %q", id, got, err, want)
			}
		}
		use := func(id, step int64, ok bool) {
			t.Helper()
			err := f.db.UseTOTPStep(f.ctx, id, step)
			if ok && err != nil || !ok && kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("step %d of %d: %v, want ok %v", step, id, err, ok)
			}
		}
		secretOf(f.m.ID, "")
		use(f.m.ID, 100, false) // off: no code passes
		if _, err := f.db.TOTPSecret(f.ctx, 99999); kassa.ErrorKindOf(err) != kassa.KindNotFound {
			t.Fatalf("an unknown merchant: %v", err)
		}

		must(t, f.db.EnableTOTP(f.ctx, f.m.ID, "JBSWY3DPEHPK3PXP", 100))
		secretOf(f.m.ID, "JBSWY3DPEHPK3PXP")
		secretOf(other.ID, "")
		if err := f.db.EnableTOTP(f.ctx, f.m.ID, "KRSXG5CTMVRXEZLU", 200); kassa.ErrorKindOf(err) != kassa.KindConflict {
			t.Fatalf("a second enrolment: %v", err)
		}
		secretOf(f.m.ID, "JBSWY3DPEHPK3PXP")
		for _, tc := range []struct {
			step int64
			ok   bool
		}{{100, false}, {99, false}, {101, true}, {101, false}, {100, false}, {103, true}, {102, false}} {
			use(f.m.ID, tc.step, tc.ok)
		}
		use(other.ID, 104, false)

		must(t, f.db.DisableTOTP(f.ctx, f.m.ID))
		secretOf(f.m.ID, "")
		use(f.m.ID, 200, false)
		must(t, f.db.EnableTOTP(f.ctx, f.m.ID, "KRSXG5CTMVRXEZLU", 50)) // a new secret starts afresh
		use(f.m.ID, 51, true)
	})
}

// TestDashboardSignIns: a half sign-in is found only as one, never as a session,
// and ends after kassa.DashboardCodeTTL; a secret being enrolled lives on its
// signed-in session only, and enabling the factor ends the session with it.
func TestDashboardSignIns(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		half, full := kassa.NewDashboardToken(), kassa.NewDashboardToken()
		s, err := f.db.CreateDashboardSignIn(f.ctx, half, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		if err != nil || s.ExpiresAt.Sub(s.CreatedAt) != kassa.DashboardCodeTTL {
			t.Fatalf("create: %+v, %v", s, err)
		}
		_, err = f.db.CreateDashboardSession(f.ctx, full, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		must(t, err)
		unauthenticated := func(err error, what string) {
			t.Helper()
			if kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("%s: %v, want unauthenticated", what, err)
			}
		}
		_, err = f.db.DashboardSession(f.ctx, half)
		unauthenticated(err, "a half sign-in as a session")
		unauthenticated(f.db.SetDashboardEnvironment(f.ctx, half, kassa.Mainnet), "switching a half sign-in")
		unauthenticated(f.db.SetDashboardTOTPPending(f.ctx, half, "JBSWY3DPEHPK3PXP"), "enrolling on a half sign-in")
		_, err = f.db.DashboardSignIn(f.ctx, full)
		unauthenticated(err, "a session as a half sign-in")
		if got, err := f.db.DashboardSignIn(f.ctx, half); err != nil || got.MerchantID != f.m.ID {
			t.Fatalf("the half sign-in: %+v, %v", got, err)
		}

		if got, err := f.db.DashboardTOTPPending(f.ctx, full); err != nil || got != "" {
			t.Fatalf("pending before: %q, %v", got, err)
		}
		must(t, f.db.SetDashboardTOTPPending(f.ctx, full, "JBSWY3DPEHPK3PXP"))
		if got, err := f.db.DashboardTOTPPending(f.ctx, full); err != nil || got != "JBSWY3DPEHPK3PXP" {
			t.Fatalf("pending: %q, %v", got, err)
		}
		// Enabling ends the merchant's sessions (credential version), the secret
		// being enrolled with them.
		must(t, f.db.EnableTOTP(f.ctx, f.m.ID, "JBSWY3DPEHPK3PXP", 1))
		if got, err := f.db.DashboardTOTPPending(f.ctx, full); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated || got != "" {
			t.Fatalf("pending after enabling: %q, %v", got, err)
		}
		half = kassa.NewDashboardToken()
		_, err = f.db.CreateDashboardSignIn(f.ctx, half, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		must(t, err)
		_, err = f.db.CreateDashboardSession(f.ctx, full, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		must(t, err)

		f.clock.Advance(kassa.DashboardCodeTTL + time.Second)
		_, err = f.db.DashboardSignIn(f.ctx, half)
		unauthenticated(err, "a half sign-in after its TTL")
		if _, err := f.db.DashboardSession(f.ctx, full); err != nil {
			t.Fatalf("the session after the half sign-in's TTL: %v", err)
		}
	})
}
