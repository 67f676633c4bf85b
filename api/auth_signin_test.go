package api_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// twoStepSecret is the second-factor secret the sign-in tests turn on.
const twoStepSecret = "JBSWY3DPEHPK3PXP"

// turnOnTwoStep turns the second factor on for m with twoStepSecret, as if
// enrolled a minute before the clock's now.
func (e *testEnv) turnOnTwoStep(t *testing.T, m *merchant) {
	t.Helper()
	step := e.clock.Now().Add(-time.Minute).Unix() / 30
	if err := e.db.EnableTOTP(context.Background(), m.m.ID, twoStepSecret, step); err != nil {
		t.Fatal(err)
	}
}

// login posts an API login with body fields (JSON members, already encoded).
func (e *testEnv) login(t *testing.T, email, password string, extra ...string) *response {
	t.Helper()
	body := `{"email": "` + email + `", "password": "` + password + `"`
	for _, x := range extra {
		body += ", " + x
	}
	return e.do(request{method: "POST", path: "/api/v1/auth/login", body: body + "}"})
}

// TestLoginSecondFactor: with two-step sign-in on, the API login needs the
// code: none is 401 second_factor_required, a wrong or replayed one 401
// invalid_code, both with param code; the right one signs in, once.
func TestLoginSecondFactor(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		e.turnOnTwoStep(t, m)
		now := code(t, twoStepSecret, clock.Now())
		for _, tc := range []struct {
			name, password string
			extra          []string
			code           string
		}{
			{"no code", "correct horse", nil, "second_factor_required"},
			{"an empty code", "correct horse", []string{`"code": ""`}, "second_factor_required"},
			{"a wrong code", "correct horse", []string{`"code": "` + wrongCode(t, twoStepSecret, clock.Now()) + `"`}, "invalid_code"},
			{"a wrong password with the right code", "wrong horse", []string{`"code": "` + now + `"`}, "invalid_credentials"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.login(t, m.m.Email, tc.password, tc.extra...)
				param := "code"
				if tc.code == "invalid_credentials" {
					param = ""
				}
				expectError(t, r, 401, "authentication_error", tc.code, param)
			})
		}
		r := e.login(t, m.m.Email, "correct horse", `"code": "`+now+`"`)
		expectStatus(t, r, 200)
		if cc := r.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q on a token", cc)
		}
		token := r.obj(t)["token"].(string)
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{"Authorization": "Bearer " + token}}), 200)
		expectError(t, e.login(t, m.m.Email, "correct horse", `"code": "`+now+`"`), 401, "authentication_error", "invalid_code", "code")
		expectError(t, e.login(t, m.m.Email, "correct horse", `"code": 123456`), 400, "invalid_request_error", "invalid_type", "code")
	})
}

// TestLoginBackoff: five wrong passwords in a row, then every attempt on the
// account is refused (429 too_many_attempts with Retry-After), the right password
// too, until the hold passes; then the right password signs in and the count
// starts over. Unknown emails get the same answers. The dashboard's sign-in
// shares the count, and wrong codes count.
func TestLoginBackoff(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		for _, email := range []string{m.m.Email, "nobody@example.com"} {
			for i := 1; i <= kassa.SignInFreeFailures; i++ {
				expectError(t, e.login(t, email, "wrong horse "+strconv.Itoa(i)), 401, "authentication_error", "invalid_credentials", "")
			}
			r := e.login(t, email, "correct horse")
			expectError(t, r, 429, "rate_limit_error", "too_many_attempts", "")
			if got := r.header.Get("Retry-After"); got != "30" {
				t.Fatalf("%s: Retry-After %q, want 30", email, got)
			}
			// The dashboard shares the rule.
			b := e.browser()
			b.post("/dashboard/login", map[string][]string{"email": {email}, "password": {"correct horse"}}).
				want(t, 429, "Too many failed sign-in attempts")
		}
		clock.Advance(29 * time.Second)
		expectError(t, e.login(t, m.m.Email, "correct horse"), 429, "rate_limit_error", "too_many_attempts", "")
		clock.Advance(time.Second)
		expectStatus(t, e.login(t, m.m.Email, "correct horse"), 200)
		for i := 1; i <= kassa.SignInFreeFailures-1; i++ { // a success starts the count over
			expectError(t, e.login(t, m.m.Email, "wrong horse"), 401, "authentication_error", "invalid_credentials", "")
		}
		expectStatus(t, e.login(t, m.m.Email, "correct horse"), 200)

		// Wrong codes count: with two-step on, five wrong codes hold the account.
		e.turnOnTwoStep(t, m)
		bad := `"code": "` + wrongCode(t, twoStepSecret, clock.Now()) + `"`
		for i := 1; i <= kassa.SignInFreeFailures; i++ {
			expectError(t, e.login(t, m.m.Email, "correct horse", bad), 401, "authentication_error", "invalid_code", "code")
		}
		expectError(t, e.login(t, m.m.Email, "correct horse", `"code": "`+code(t, twoStepSecret, clock.Now())+`"`),
			429, "rate_limit_error", "too_many_attempts", "")
	})
}
