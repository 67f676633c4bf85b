package api_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestMerchantPatchReauthentication: PATCH /api/v1/merchant that changes the
// email or a settlement target needs current_password (403
// reauthentication_required without, invalid_current_password when wrong), and
// with two-step on the code too (403 second_factor_required, invalid_code);
// other changes need nothing. A refused change changes nothing.
func TestMerchantPatchReauthentication(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		patch := func(body string) *response {
			t.Helper()
			return e.do(request{method: "PATCH", path: "/api/v1/merchant", body: body, headers: m.jwt()})
		}
		target := `"settlement": {"devnet": {"network": "bsc", "token_symbol": "USDT", "address": "` + wallet + `"}}`
		changes := map[string]string{
			"email":             `"email": "thief@example.com"`,
			"settlement target": target,
			"settlement clear":  `"settlement": {"devnet": null}`,
			"all settlements":   `"settlement": null`,
			"tolerance":         `"underpayment_tolerance_usd_millis": 100000`,
		}
		unchanged := func(t *testing.T) {
			t.Helper()
			got := e.do(request{method: "GET", path: "/api/v1/merchant", headers: m.jwt()}).obj(t)
			if got["email"] != m.m.Email || got["settlement"].(map[string]any)["devnet"] != nil ||
				got["underpayment_tolerance_usd_millis"] != float64(0) {
				t.Fatalf("a refused update changed the merchant: %v", got)
			}
		}
		for name, change := range changes {
			t.Run(name, func(t *testing.T) {
				expectError(t, patch(`{`+change+`}`), 403, "permission_error", "reauthentication_required", "current_password")
				expectError(t, patch(`{`+change+`, "current_password": ""}`), 403, "permission_error", "reauthentication_required", "current_password")
				expectError(t, patch(`{`+change+`, "current_password": "wrong horse"}`), 403, "permission_error", "invalid_current_password", "current_password")
				unchanged(t)
			})
		}
		// Five wrong passwords above: the account's hold (30 s) has begun.
		clock.Advance(time.Minute)
		// Not sensitive: no proof needed.
		expectStatus(t, patch(`{"name": "Renamed", "company_name": "Co", "default_return_url": "https://shop.example/"}`), 200)
		// Bad input is 400 before any proof is asked for.
		expectError(t, patch(`{"email": "not-an-email"}`), 400, "invalid_request_error", "invalid_email", "email")
		r := patch(`{` + target + `, "current_password": "correct horse"}`)
		expectStatus(t, r, 200)
		if dev, _ := r.obj(t)["settlement"].(map[string]any)["devnet"].(map[string]any); dev["address"] != wallet {
			t.Fatalf("settlement after the update %s", r.body)
		}

		e.turnOnTwoStep(t, m) // ends m's token: log in again with the code
		m.token = e.loginToken(t, m, "correct horse", twoStepSecret, clock)
		clock.Advance(30 * time.Second)
		email := `"email": "new@example.com", "current_password": "correct horse"`
		expectError(t, patch(`{`+email+`}`), 403, "permission_error", "second_factor_required", "code")
		expectError(t, patch(`{`+email+`, "code": "`+wrongCode(t, twoStepSecret, clock.Now())+`"}`), 403, "permission_error", "invalid_code", "code")
		expectError(t, patch(`{"email": "new@example.com", "current_password": "wrong horse", "code": "`+code(t, twoStepSecret, clock.Now())+`"}`),
			403, "permission_error", "invalid_current_password", "current_password")
		now := code(t, twoStepSecret, clock.Now())
		r = patch(`{` + email + `, "code": "` + now + `"}`)
		expectStatus(t, r, 200)
		if r.obj(t)["email"] != "new@example.com" {
			t.Fatalf("email after the update %s", r.body)
		}
		expectError(t, patch(`{"email": "newer@example.com", "current_password": "correct horse", "code": "`+now+`"}`),
			403, "permission_error", "invalid_code", "code") // a code works once

		// Wrong proofs count towards the account's hold, as sign-ins do: the replayed
		// code above and four wrong passwords make five.
		for i := 1; i < kassa.SignInFreeFailures; i++ {
			expectError(t, patch(`{`+target+`, "current_password": "wrong horse"}`), 403, "permission_error", "invalid_current_password", "current_password")
		}
		r = patch(`{` + target + `, "current_password": "correct horse", "code": "` + code(t, twoStepSecret, clock.Now().Add(30*time.Second)) + `"}`)
		expectError(t, r, 429, "rate_limit_error", "too_many_attempts", "")
		if r.header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	})
}

// TestDashboardSettlementNeedsPassword: the dashboard's account form saves a
// changed settlement target only with the current password, shown by its field
// when missing or wrong; a form that changes no target needs none.
func TestDashboardSettlementNeedsPassword(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		for _, tc := range []struct{ password, msg string }{
			{"", "needs your current password"},
			{"wrong horse", "The current password is incorrect."},
		} {
			f := settingsForm()
			f.Set("current_password", tc.password)
			b.post("/dashboard/settings", f).want(t, 403, tc.msg, `id="current_password-note"`, `aria-invalid="true"`, `value="`+wallet+`"`)
		}
		got := e.do(request{method: "GET", path: "/api/v1/merchant", headers: m.jwt()}).obj(t)
		if got["settlement"].(map[string]any)["devnet"] != nil {
			t.Fatalf("a refused form set a settlement target: %v", got)
		}
		seeOther(t, b.post("/dashboard/settings", settingsForm()), "/dashboard/settings?saved=1")
		f := settingsForm() // the same target again, a new name: no proof needed
		f.Set("company_name", "Other Co")
		f.Del("current_password")
		seeOther(t, b.post("/dashboard/settings", f), "/dashboard/settings?saved=1")
	})
}

// TestDashboardHalfSignInVoid: a half sign-in takes five codes; the fifth wrong
// one voids it (back to the password, with a note), and the right code then
// finds nothing to finish.
func TestDashboardHalfSignInVoid(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		e.turnOnTwoStep(t, m)
		b := e.browser()
		b.passwordStep(t, m, "/dashboard")
		bad := url.Values{"code": {wrongCode(t, twoStepSecret, clock.Now())}}
		for i := 1; i < kassa.DashboardCodeTries; i++ {
			b.post("/dashboard/login/code", bad).want(t, 401, "incorrect")
		}
		seeOther(t, b.post("/dashboard/login/code", bad), "/dashboard/login?void=1&next=%2Fdashboard")
		b.get("/dashboard/login?void=1").want(t, 200, "Too many wrong codes")
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, twoStepSecret, clock.Now())}}),
			"/dashboard/login?expired=1&next=%2Fdashboard")
		expectSignedOut(t, b)
		// The five wrong codes and the password step count on the account: it is held.
		b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}}).want(t, 429, "Too many failed sign-in attempts")
		clock.Advance(kassa.SignInHold(kassa.DashboardCodeTries + 1))
		b.passwordStep(t, m, "/dashboard")
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, twoStepSecret, clock.Now())}}), "/dashboard")
	})
}
