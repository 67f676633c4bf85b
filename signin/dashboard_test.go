package signin_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// wantSession checks that token opens a dashboard session of merchantID in env.
func wantSession(t *testing.T, st *store.DB, token string, merchantID int64, env kassa.Environment) {
	t.Helper()
	s, err := st.DashboardSession(context.Background(), token)
	if err != nil {
		t.Fatalf("session of %q: %v", token, err)
	}
	if s.MerchantID != merchantID || s.Environment != env {
		t.Fatalf("session of merchant %d in %s, want %d in %s", s.MerchantID, s.Environment, merchantID, env)
	}
}

// TestDashboardPasswordStep: the password alone starts a session while two-step
// sign-in is off; with it on, a half sign-in that opens no session and waits for
// the code, which turns it into a session under a new token. A wrong password
// starts nothing, and an empty or unknown token awaits no code.
func TestDashboardPasswordStep(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		ctx := context.Background()
		st := storetest.Open(t, cfg)
		svc := signin.New(st, st, time.Now)
		m, err := st.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "shop@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Password(ctx, m.Email, "wrong horse"); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
			t.Fatalf("a wrong password: %v, want unauthenticated", err)
		}
		step, err := svc.Password(ctx, m.Email, "correct horse")
		if err != nil || step.AwaitsCode {
			t.Fatalf("two-step off: %+v, %v; want a session", step, err)
		}
		wantSession(t, st, step.Token, m.ID, kassa.Devnet)

		if err := st.EnableTOTP(ctx, m.ID, secret, 1); err != nil {
			t.Fatal(err)
		}
		step, err = svc.Password(ctx, m.Email, "correct horse")
		if err != nil || !step.AwaitsCode {
			t.Fatalf("two-step on: %+v, %v; want a half sign-in", step, err)
		}
		if _, err := st.DashboardSession(ctx, step.Token); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
			t.Fatalf("a half sign-in opens a session: %v", err)
		}
		for _, token := range []string{"", kassa.NewDashboardToken()} {
			if err := svc.AwaitingCode(ctx, token); kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				t.Fatalf("AwaitingCode(%q): %v, want unauthenticated", token, err)
			}
		}
		if err := svc.AwaitingCode(ctx, step.Token); err != nil {
			t.Fatalf("AwaitingCode of a live half sign-in: %v", err)
		}
		if _, err := svc.Code(ctx, "", totpCode(t, time.Now())); kassa.ErrorCode(err) != "signed_out" {
			t.Fatalf("Code without a half sign-in: %v, want signed_out", err)
		}
		full, err := svc.Code(ctx, step.Token, totpCode(t, time.Now().Add(30*time.Second)))
		if err != nil {
			t.Fatalf("a right code: %v", err)
		}
		if full == step.Token {
			t.Fatal("the session took the half sign-in's token")
		}
		wantSession(t, st, full, m.ID, kassa.Devnet)
		if err := svc.AwaitingCode(ctx, step.Token); err == nil {
			t.Fatal("the half sign-in outlived its code")
		}
	})
}
