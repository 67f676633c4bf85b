package signin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestTwoStepEnrolment: a set-up keeps a secret on the session (shown with its
// URI while off, never once on); turning it on needs a set-up, the password and
// a code of that secret, turning it off the password and a fresh code; each
// change ends the merchant's sessions and gives the caller a fresh one in the
// same environment.
func TestTwoStepEnrolment(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		ctx := context.Background()
		st := storetest.Open(t, cfg)
		clock := time.Now()
		svc := signin.New(st, st, func() time.Time { return clock })
		m, err := st.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "shop@example.com", Password: "correct horse",
			MainnetEnabled: true})
		if err != nil {
			t.Fatal(err)
		}
		token := kassa.NewDashboardToken()
		cur, err := st.CreateDashboardSession(ctx, token, m.ID, m.CredentialVersion, kassa.Mainnet)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := svc.TwoStep(ctx, m, token); err != nil || got != (signin.TwoStep{}) {
			t.Fatalf("before a set-up: %+v, %v; want off, nothing enrolling", got, err)
		}
		if _, err := svc.EnableTwoStep(ctx, token, cur, signin.Proof{Password: "correct horse", Code: "123456"}); kassa.ErrorCode(err) != "two_step_not_set_up" {
			t.Fatalf("enabling without a set-up: %v, want two_step_not_set_up", err)
		}
		if err := svc.SetUpTwoStep(ctx, m, token); err != nil {
			t.Fatal(err)
		}
		enrolling, err := svc.TwoStep(ctx, m, token)
		if err != nil || enrolling.On || enrolling.Secret == "" || !strings.HasPrefix(enrolling.URI, "otpauth://totp/") ||
			!strings.Contains(enrolling.URI, "secret="+enrolling.Secret) {
			t.Fatalf("after a set-up: %+v, %v; want its secret and URI", enrolling, err)
		}
		code := func(at time.Time) string { return codeOf(t, enrolling.Secret, at) }
		for _, tc := range []struct {
			name        string
			p           signin.Proof
			code, param string
		}{
			{"no password", signin.Proof{Code: code(clock)}, "reauthentication_required", "current_password"},
			{"wrong password", signin.Proof{Password: "wrong horse", Code: code(clock)}, "invalid_current_password", "current_password"},
			{"wrong code", signin.Proof{Password: "correct horse", Code: code(clock.Add(time.Hour))}, "invalid_code", "code"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := svc.EnableTwoStep(ctx, token, cur, tc.p)
				if e := kassa.AsError(err); err == nil || e.Code != tc.code || e.Param != tc.param {
					t.Fatalf("EnableTwoStep: %v, want %s (param %s)", err, tc.code, tc.param)
				}
			})
		}
		fresh, err := svc.EnableTwoStep(ctx, token, cur, signin.Proof{Password: "correct horse", Code: code(clock)})
		if err != nil {
			t.Fatalf("EnableTwoStep: %v", err)
		}
		if _, err := st.DashboardSession(ctx, token); err == nil {
			t.Fatal("the session that turned two-step on outlived the change")
		}
		wantSession(t, st, fresh, m.ID, kassa.Mainnet)
		if got, err := svc.TwoStep(ctx, m, fresh); err != nil || got != (signin.TwoStep{On: true}) {
			t.Fatalf("once on: %+v, %v; want on, no secret", got, err)
		}

		cur, err = st.DashboardSession(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(30 * time.Second) // the enrolment used the code of its step
		if _, err := svc.DisableTwoStep(ctx, cur, signin.Proof{Password: "correct horse"}); kassa.ErrorCode(err) != "second_factor_required" {
			t.Fatalf("disabling without a code: %v, want second_factor_required", err)
		}
		again, err := svc.DisableTwoStep(ctx, cur, signin.Proof{Password: "correct horse", Code: code(clock)})
		if err != nil {
			t.Fatalf("DisableTwoStep: %v", err)
		}
		wantSession(t, st, again, m.ID, kassa.Mainnet)
		if got, err := svc.TwoStep(ctx, m, again); err != nil || got.On {
			t.Fatalf("once off: %+v, %v", got, err)
		}
	})
}
