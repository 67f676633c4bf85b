package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// held returns how long err says to wait, or 0 when it is not a hold.
func held(t *testing.T, err error) time.Duration {
	t.Helper()
	var h *signin.Held
	if errors.As(err, &h) {
		if kassa.ErrorKindOf(err) != kassa.KindRateLimited || kassa.ErrorCode(err) != "too_many_attempts" {
			t.Fatalf("a hold of kind %s, code %s", kassa.ErrorKindOf(err), kassa.ErrorCode(err))
		}
		return h.RetryAfter
	}
	if err != nil {
		t.Fatalf("begin sign-in: %v", err)
	}
	return 0
}

// TestSignInThrottle: five attempts go through, the sixth is held for the
// first hold, which doubles per failure up to the cap; a success forgets the
// failures, so do 24 quiet hours; accounts are counted apart.
func TestSignInThrottle(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		account, other := kassa.SignInAccount("Owner@Example.com"), kassa.SignInAccount("nobody@example.com")
		for i := 1; i <= kassa.SignInFreeFailures; i++ {
			if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != 0 {
				t.Fatalf("attempt %d held %s", i, d)
			}
		}
		if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != kassa.SignInHoldBase {
			t.Fatalf("the 6th attempt: held %s, want %s", d, kassa.SignInHoldBase)
		}
		if d := held(t, f.db.BeginSignIn(f.ctx, other)); d != 0 {
			t.Fatalf("another account held %s", d)
		}
		f.clock.Advance(kassa.SignInHoldBase - time.Second)
		if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != time.Second {
			t.Fatalf("1 s before the hold ends: held %s", d)
		}
		f.clock.Advance(time.Second)
		if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != 0 { // the 6th failure
			t.Fatalf("after the hold: held %s", d)
		}
		if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != 2*kassa.SignInHoldBase {
			t.Fatalf("after the 6th failure: held %s, want %s", d, 2*kassa.SignInHoldBase)
		}
		for range 10 {
			f.clock.Advance(kassa.SignInHoldMax)
			held(t, f.db.BeginSignIn(f.ctx, account))
		}
		if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != kassa.SignInHoldMax {
			t.Fatalf("after many failures: held %s, want the cap %s", d, kassa.SignInHoldMax)
		}
		// A wrong code on a half sign-in counts too, held or not.
		if err := f.db.SignInFailed(f.ctx, other); err != nil {
			t.Fatal(err)
		}

		f.clock.Advance(kassa.SignInHoldMax)
		if err := f.db.SignedIn(f.ctx, account); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= kassa.SignInFreeFailures; i++ {
			if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != 0 {
				t.Fatalf("after a success, attempt %d held %s", i, d)
			}
		}
		f.clock.Advance(kassa.SignInForget)
		for i := 1; i <= kassa.SignInFreeFailures; i++ {
			if d := held(t, f.db.BeginSignIn(f.ctx, account)); d != 0 {
				t.Fatalf("after a quiet day, attempt %d held %s", i, d)
			}
		}
		// The prune deletes the rows a quiet day made moot, and only those.
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 1 { // other's
			t.Fatalf("prune after a day: %d, %v; want 1", n, err)
		}
		f.clock.Advance(kassa.SignInForget - time.Second)
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 0 {
			t.Fatalf("prune within a day of a failure: %d, %v; want 0", n, err)
		}
		f.clock.Advance(time.Second)
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 1 {
			t.Fatalf("prune a day after the last failure: %d, %v; want 1", n, err)
		}
	})
}

// TestSignInFailuresPruneFree: an account's failures below the free count hold
// nothing, so they are forgotten (and pruned) kassa.SignInFreeForget after the
// last; an account with more keeps its row for kassa.SignInForget.
func TestSignInFailuresPruneFree(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		typo, sprayed, held := kassa.SignInAccount("typo@example.com"), kassa.SignInAccount("sprayed@example.com"),
			kassa.SignInAccount("held@example.com")
		for i := 1; i < kassa.SignInFreeFailures; i++ {
			must(t, f.db.BeginSignIn(f.ctx, typo))
			must(t, f.db.BeginSignIn(f.ctx, sprayed))
		}
		for range kassa.SignInFreeFailures {
			must(t, f.db.BeginSignIn(f.ctx, held))
		}
		f.clock.Advance(kassa.SignInFreeForget - time.Second)
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 0 {
			t.Fatalf("prune before the free failures are forgotten: %d, %v; want 0", n, err)
		}
		f.clock.Advance(time.Second)
		// Forgotten whether the prune ran or not: the free attempts are whole again.
		for i := 1; i <= kassa.SignInFreeFailures; i++ {
			must(t, f.db.BeginSignIn(f.ctx, sprayed))
		}
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 1 { // typo's
			t.Fatalf("prune of the free failures: %d, %v; want 1", n, err)
		}
		if err := f.db.BeginSignIn(f.ctx, sprayed); err == nil {
			t.Fatal("the attempt after the free ones was not held")
		}
		f.clock.Advance(kassa.SignInForget - kassa.SignInFreeForget - time.Second)
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 0 {
			t.Fatalf("prune within a day of a held account's failure: %d, %v; want 0", n, err)
		}
		f.clock.Advance(time.Second)
		if n, err := f.db.PruneSignInFailures(f.ctx); err != nil || n != 1 { // held's
			t.Fatalf("prune a day after a held account's failure: %d, %v; want 1", n, err)
		}
	})
}

// TestSignInThrottleConcurrent: attempts sent together each count, so twenty at
// once on a fresh account let exactly the free five through.
func TestSignInThrottleConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		account := kassa.SignInAccount("victim@example.com")
		var (
			wg             sync.WaitGroup
			mu             sync.Mutex
			passed, holdsN int
		)
		for range 20 {
			wg.Go(func() {
				err := f.db.BeginSignIn(f.ctx, account)
				var h *signin.Held
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					passed++
				case errors.As(err, &h):
					holdsN++
				default:
					t.Errorf("begin sign-in: %v", err)
				}
			})
		}
		wg.Wait()
		if passed != kassa.SignInFreeFailures || holdsN != 20-kassa.SignInFreeFailures {
			t.Fatalf("%d passed and %d were held, want %d and %d", passed, holdsN, kassa.SignInFreeFailures, 20-kassa.SignInFreeFailures)
		}
	})
}

// TestCredentialVersion: a password change, turning two-step on or off and
// signing out everywhere each move the version on and end every dashboard
// session and half sign-in of the merchant, not another merchant's.
func TestCredentialVersion(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		bystander := f.merchant(t, "bystander@example.com")
		theirs := kassa.NewDashboardToken()
		if _, err := f.db.CreateDashboardSession(f.ctx, theirs, bystander.ID, f.cv(t, bystander.ID), kassa.Devnet); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			bump func() error
		}{
			{"password change", func() error { return f.db.ChangePassword(f.ctx, f.m.ID, "correct horse", "battery staple") }},
			{"two-step on", func() error { return f.db.EnableTOTP(f.ctx, f.m.ID, "JBSWY3DPEHPK3PXP", 1) }},
			{"two-step off", func() error { return f.db.DisableTOTP(f.ctx, f.m.ID) }},
			{"sign out everywhere", func() error { return f.db.SignOutEverywhere(f.ctx, f.m.ID) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before, err := f.db.Merchant(f.ctx, f.m.ID)
				if err != nil {
					t.Fatal(err)
				}
				session, half := kassa.NewDashboardToken(), kassa.NewDashboardToken()
				if _, err := f.db.CreateDashboardSession(f.ctx, session, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
					t.Fatal(err)
				}
				if _, err := f.db.CreateDashboardSignIn(f.ctx, half, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
					t.Fatal(err)
				}
				if err := tc.bump(); err != nil {
					t.Fatal(err)
				}
				after, err := f.db.Merchant(f.ctx, f.m.ID)
				if err != nil {
					t.Fatal(err)
				}
				if after.CredentialVersion != before.CredentialVersion+1 {
					t.Fatalf("credential version %d, then %d", before.CredentialVersion, after.CredentialVersion)
				}
				if _, err := f.db.DashboardSession(f.ctx, session); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
					t.Fatalf("a session outlived the %s: %v", tc.name, err)
				}
				if _, err := f.db.DashboardSignIn(f.ctx, half); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
					t.Fatalf("a half sign-in outlived the %s: %v", tc.name, err)
				}
				if _, err := f.db.DashboardSession(f.ctx, theirs); err != nil {
					t.Fatalf("another merchant's session ended: %v", err)
				}
				fresh := kassa.NewDashboardToken()
				if _, err := f.db.CreateDashboardSession(f.ctx, fresh, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
					t.Fatal(err)
				}
				if _, err := f.db.DashboardSession(f.ctx, fresh); err != nil {
					t.Fatalf("a session made after the %s: %v", tc.name, err)
				}
			})
		}
		if err := f.db.SignOutEverywhere(f.ctx, 1<<40); kassa.ErrorKindOf(err) != kassa.KindNotFound {
			t.Fatalf("signing out an unknown merchant: %v", err)
		}
	})
}

// TestDashboardCodeTries: a half sign-in takes kassa.DashboardCodeTries code
// attempts, counted before each is checked; one more voids it, and then it is
// gone. Of many concurrent attempts only kassa.DashboardCodeTries pass. A half
// sign-in is consumed once: not after another request ended it.
func TestDashboardCodeTries(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		newHalf := func(t *testing.T) string {
			t.Helper()
			half := kassa.NewDashboardToken()
			if _, err := f.db.CreateDashboardSignIn(f.ctx, half, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
				t.Fatal(err)
			}
			return half
		}
		t.Run("in turn", func(t *testing.T) {
			half := newHalf(t)
			for i := 1; i <= kassa.DashboardCodeTries; i++ {
				ok, last, err := f.db.DashboardCodeAttempt(f.ctx, half)
				if err != nil || !ok || last != (i == kassa.DashboardCodeTries) {
					t.Fatalf("attempt %d: ok %v last %v, %v", i, ok, last, err)
				}
			}
			if ok, _, err := f.db.DashboardCodeAttempt(f.ctx, half); err != nil || ok {
				t.Fatalf("an attempt past the last: ok %v, %v; want void", ok, err)
			}
			if _, err := f.db.DashboardSignIn(f.ctx, half); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("a void half sign-in lives on: %v", err)
			}
			if _, _, err := f.db.DashboardCodeAttempt(f.ctx, half); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("counting on a void half sign-in: %v", err)
			}
		})
		t.Run("concurrent", func(t *testing.T) {
			half := newHalf(t)
			var (
				wg           sync.WaitGroup
				mu           sync.Mutex
				passed, last int
			)
			for range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, l, err := f.db.DashboardCodeAttempt(f.ctx, half)
					if err != nil && kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
						t.Error(err)
					}
					mu.Lock()
					defer mu.Unlock()
					if ok {
						passed++
					}
					if l {
						last++
					}
				}()
			}
			wg.Wait()
			if passed != kassa.DashboardCodeTries || last != 1 {
				t.Fatalf("%d of 20 concurrent attempts passed (%d last), want %d (1)", passed, last, kassa.DashboardCodeTries)
			}
		})
		t.Run("consumed once", func(t *testing.T) {
			half := newHalf(t)
			if ok, _, err := f.db.DashboardCodeAttempt(f.ctx, half); err != nil || !ok {
				t.Fatalf("attempt: %v, %v", ok, err)
			}
			got, err := f.db.ConsumeDashboardSignIn(f.ctx, half)
			if err != nil || got.MerchantID != f.m.ID || got.CredentialVersion != f.cv(t, f.m.ID) {
				t.Fatalf("consume: %+v, %v", got, err)
			}
			for what, err := range map[string]error{
				"consume again": func() error { _, err := f.db.ConsumeDashboardSignIn(f.ctx, half); return err }(),
				"sign-in after": func() error { _, err := f.db.DashboardSignIn(f.ctx, half); return err }(),
			} {
				if kassa.ErrorCode(err) != "session_ended" {
					t.Fatalf("%s: %v, want session_ended", what, err)
				}
			}
			voided := newHalf(t)
			if err := f.db.DeleteDashboardSession(f.ctx, voided); err != nil {
				t.Fatal(err)
			}
			if _, err := f.db.ConsumeDashboardSignIn(f.ctx, voided); kassa.ErrorCode(err) != "session_ended" {
				t.Fatalf("consuming a voided half sign-in: %v, want session_ended", err)
			}
		})
	})
}
