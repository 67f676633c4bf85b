package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// code is the TOTP code of secret at t, as an authenticator app computes it.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wrongCode is a 6-digit code that is none of secret's codes around at.
func wrongCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	for _, c := range []string{"000000", "111111", "222222", "333333"} {
		if c != code(t, secret, at.Add(-30*time.Second)) && c != code(t, secret, at) && c != code(t, secret, at.Add(30*time.Second)) {
			return c
		}
	}
	t.Fatal("no wrong code")
	return ""
}

// twoStepClock is a test clock 10 s into a 30-second time step.
func twoStepClock() *storetest.Clock {
	return storetest.NewClock(time.Now().Truncate(30 * time.Second).Add(10 * time.Second))
}

// enrol turns the second factor on for b's merchant and returns its secret.
func (b *browser) enrol(t *testing.T) string {
	t.Helper()
	seeOther(t, b.post("/dashboard/settings/two-step/setup", url.Values{}), "/dashboard/settings#two-step")
	p := b.get("/dashboard/settings").want(t, 200, `src="data:image/png;base64,`, `action="/dashboard/settings/two-step/enable"`,
		`autocomplete="one-time-code"`, `inputmode="numeric"`)
	secret := regexp.MustCompile(`<code class="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(p.body)[1]
	now := b.e.clock.Now()
	b.post("/dashboard/settings/two-step/enable", url.Values{"password": {"correct horse"}, "code": {wrongCode(t, secret, now)}}).
		want(t, 400, "The code is incorrect", `aria-invalid="true"`, secret)
	seeOther(t, b.post("/dashboard/settings/two-step/enable", url.Values{"password": {"correct horse"}, "code": {code(t, secret, now)}}),
		"/dashboard/settings?two_step=on#two-step")
	return secret
}

// passwordStep posts the password of m with next and expects the code step.
func (b *browser) passwordStep(t *testing.T, m *merchant, next string) page {
	t.Helper()
	p := b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}, "next": {next}})
	seeOther(t, p, "/dashboard/login/code?next="+url.QueryEscape(next))
	if c := p.header.Get("Set-Cookie"); !strings.Contains(c, "kassa_signin=") || !strings.Contains(c, "Path=/dashboard/login") ||
		!strings.Contains(c, "HttpOnly") || strings.Contains(c, "kassa_session=") {
		t.Fatalf("the password step's cookie %q", c)
	}
	return p
}

// TestDashboardTwoStep: enrolment (a wrong then a right code), sign-in in two
// steps (a wrong code is refused, a right one signs in once, never the same code
// again), the half sign-in opens nothing, ends after five minutes, and turning
// the factor off needs the password and a code.
func TestDashboardTwoStep(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/settings").want(t, 200, "Two-step sign-in", `badge disabled">off`, `action="/dashboard/settings/two-step/setup"`)
		secret := b.enrol(t)
		if p := b.get("/dashboard/settings?two_step=on").want(t, 200, `badge enabled">on`, "Two-step sign-in is on",
			`action="/dashboard/settings/two-step/disable"`); strings.Contains(p.body, secret) {
			t.Fatal("the settings page shows the secret after enrolment")
		}
		seeOther(t, b.post("/dashboard/logout", url.Values{}), "/dashboard/login")

		// The enrolment's code is used; the password alone opens nothing.
		enrolCode := code(t, secret, clock.Now())
		p := b.passwordStep(t, m, "/dashboard/invoices")
		half := regexp.MustCompile(`kassa_signin=([^;]+)`).FindStringSubmatch(p.header.Get("Set-Cookie"))[1]
		seeOther(t, b.get("/dashboard"), "/dashboard/login?next=%2Fdashboard")
		seeOther(t, e.browser().do("GET", "/dashboard", nil, "Cookie: kassa_session="+half), "/dashboard/login?next=%2Fdashboard")
		b.get("/dashboard/login/code?next=%2Fdashboard%2Finvoices").want(t, 200, `name="code"`, `autocomplete="one-time-code"`,
			`action="/dashboard/login/code"`, `value="/dashboard/invoices"`)
		b.post("/dashboard/login/code", url.Values{"code": {enrolCode}}).want(t, 401, "already used")
		b.post("/dashboard/login/code", url.Values{"code": {wrongCode(t, secret, clock.Now())}}).want(t, 401, "incorrect", `aria-invalid="true"`)

		clock.Advance(30 * time.Second)
		signedInCode := code(t, secret, clock.Now())
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {signedInCode}, "next": {"/dashboard/invoices"}}), "/dashboard/invoices")
		b.get("/dashboard").want(t, 200, "Sign out "+m.m.Email)
		seeOther(t, e.browser().do("POST", "/dashboard/login/code", url.Values{"code": {signedInCode}}, "Cookie: kassa_signin="+half),
			"/dashboard/login?expired=1&next=%2Fdashboard") // the half sign-in is spent

		// The same code again fails; one step ahead (clock skew) passes.
		seeOther(t, b.post("/dashboard/logout", url.Values{}), "/dashboard/login")
		b.passwordStep(t, m, "/dashboard")
		b.post("/dashboard/login/code", url.Values{"code": {signedInCode}}).want(t, 401, "already used")
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, secret, clock.Now().Add(30*time.Second))}}), "/dashboard")
		seeOther(t, b.post("/dashboard/logout", url.Values{}), "/dashboard/login")

		// A half sign-in ends after five minutes.
		b.passwordStep(t, m, "/dashboard")
		clock.Advance(kassa.DashboardCodeTTL + time.Second)
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, secret, clock.Now())}}), "/dashboard/login?expired=1&next=%2Fdashboard")
		b.get("/dashboard/login?expired=1").want(t, 200, "waited too long")
		seeOther(t, b.get("/dashboard/login/code"), "/dashboard/login?expired=1&next=%2Fdashboard")
		b.passwordStep(t, m, "/dashboard")
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, secret, clock.Now())}}), "/dashboard")

		// Turning it off needs the password and a fresh code.
		clock.Advance(30 * time.Second)
		now := code(t, secret, clock.Now())
		for _, tc := range []struct{ password, code, msg string }{
			{"wrong horse", now, "The current password is incorrect."},
			{"correct horse", wrongCode(t, secret, clock.Now()), "incorrect"},
			{"correct horse", "", "Two-step sign-in is on"},
		} {
			b.post("/dashboard/settings/two-step/disable", url.Values{"password": {tc.password}, "code": {tc.code}}).
				want(t, 403, tc.msg, `aria-invalid="true"`, `badge enabled">on`)
		}
		seeOther(t, b.post("/dashboard/settings/two-step/disable", url.Values{"password": {"correct horse"}, "code": {now}}),
			"/dashboard/settings?two_step=off#two-step")
		b.get("/dashboard/settings?two_step=off").want(t, 200, "Two-step sign-in is off.", `badge disabled">off`)
		seeOther(t, b.post("/dashboard/logout", url.Values{}), "/dashboard/login")
		b.signIn(m) // the password alone again
	})
}

// TestDashboardTwoStepGuards: the second-factor forms refuse cross-origin posts,
// wrong codes draw on the sign-in rate limit, and enrolment needs a set-up first.
func TestDashboardTwoStepGuards(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock, withLimits(httpx.RateLimits{Rate: 1e6, Burst: 1e6, CreateRate: 1e6, CreateBurst: 1e6,
			LoginRate: 1e-6, LoginBurst: 6}))
		m := e.newMerchant(false) // the API login takes 1
		b := e.browser()
		b.signIn(m) // 2
		// 3: enrolling without a set-up
		b.post("/dashboard/settings/two-step/enable", url.Values{"code": {"123456"}}).want(t, 400, "Set up two-step sign-in first.")
		for _, path := range []string{"/dashboard/login/code", "/dashboard/settings/two-step/setup",
			"/dashboard/settings/two-step/enable", "/dashboard/settings/two-step/disable"} {
			b.post(path, url.Values{"code": {"123456"}, "password": {"correct horse"}}, "Origin: http://evil.example").want(t, 403, "another site")
		}
		secret := b.enrol(t) // 5: a wrong and a right code
		seeOther(t, b.post("/dashboard/logout", url.Values{}), "/dashboard/login")
		b.passwordStep(t, m, "/dashboard") // 6
		b.post("/dashboard/login/code", url.Values{"code": {code(t, secret, clock.Now().Add(30*time.Second))}}).
			want(t, http.StatusTooManyRequests, "Too many sign-in attempts")
	})
}
