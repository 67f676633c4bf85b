package api_test

import (
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// expectRevoked checks that a dashboard JWT no longer mints API keys (nor reads
// the account): 401 token_revoked.
func expectRevoked(t *testing.T, e *testEnv, token string) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	expectError(t, e.do(request{method: "POST", path: "/api/v1/api-keys", body: `{"name": "after"}`, headers: h}),
		401, "authentication_error", "token_revoked", "")
	expectError(t, e.do(request{method: "GET", path: "/api/v1/merchant", headers: h}), 401, "authentication_error", "token_revoked", "")
}

// expectSignedOut checks that b's dashboard session has ended.
func expectSignedOut(t *testing.T, b *browser) {
	t.Helper()
	seeOther(t, b.get("/dashboard/settings"), "/dashboard/login?next=%2Fdashboard%2Fsettings")
}

// TestCredentialChangesEndTokens: a dashboard JWT and a dashboard session made
// before a password change, turning two-step on or off, or signing out
// everywhere (API or dashboard) are refused after it; a new login works.
func TestCredentialChangesEndTokens(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		actor := e.browser() // the browser that makes each change
		actor.signIn(m)
		password, secret := "correct horse", ""
		for _, tc := range []struct {
			name   string
			change func(t *testing.T, token string)
		}{
			{"password change", func(t *testing.T, _ string) {
				seeOther(t, actor.post("/dashboard/settings/password", url.Values{"current_password": {password},
					"new_password": {"battery staple"}, "confirm_password": {"battery staple"}}), "/dashboard/login?changed=1")
				password = "battery staple"
				actor.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {password}})
			}},
			{"two-step on", func(t *testing.T, _ string) {
				seeOther(t, actor.post("/dashboard/settings/two-step/setup", url.Values{}), "/dashboard/settings#two-step")
				secret = pendingSecret(t, actor)
				seeOther(t, actor.post("/dashboard/settings/two-step/enable", url.Values{"password": {password},
					"code": {code(t, secret, clock.Now())}}), "/dashboard/settings?two_step=on#two-step")
				actor.get("/dashboard/settings").want(t, 200, `badge enabled">on`) // the actor keeps a fresh session
				clock.Advance(30 * time.Second)
			}},
			{"two-step off", func(t *testing.T, _ string) {
				seeOther(t, actor.post("/dashboard/settings/two-step/disable", url.Values{"password": {password},
					"code": {code(t, secret, clock.Now())}}), "/dashboard/settings?two_step=off#two-step")
				actor.get("/dashboard/settings").want(t, 200, `badge disabled">off`)
				secret = ""
			}},
			{"sign out everywhere (API)", func(t *testing.T, token string) {
				r := e.do(request{method: "POST", path: "/api/v1/auth/sign-out-everywhere", headers: map[string]string{"Authorization": "Bearer " + token}})
				expectStatus(t, r, 204)
			}},
			{"sign out everywhere (dashboard)", func(t *testing.T, _ string) {
				actor.signInWith(m, password, "")
				seeOther(t, actor.post("/dashboard/settings/sign-out-everywhere", url.Values{}), "/dashboard/login?signed_out=1")
				actor.get("/dashboard/login?signed_out=1").want(t, 200, "Every session of your account was signed out")
				expectSignedOut(t, actor)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				clock.Advance(time.Minute) // past the codes used before
				token := e.loginToken(t, m, password, secret, clock)
				other := e.browser()
				other.signInWith(m, password, secret)
				if secret != "" {
					clock.Advance(time.Minute) // past the codes used
				}
				tc.change(t, token)
				expectRevoked(t, e, token)
				expectSignedOut(t, other)
				if secret != "" {
					clock.Advance(30 * time.Second)
				}
				fresh := e.loginToken(t, m, password, secret, clock)
				expectStatus(t, e.do(request{method: "POST", path: "/api/v1/api-keys", body: `{"name": "fresh"}`,
					headers: map[string]string{"Authorization": "Bearer " + fresh}}), 201)
			})
		}

		// A token without a credential version (issued before the upgrade) is refused too.
		old, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: strconv.FormatInt(m.m.ID, 10),
			Issuer: "kassa", IssuedAt: jwt.NewNumericDate(clock.Now()), ExpiresAt: jwt.NewNumericDate(clock.Now().Add(time.Hour))}).
			SignedString(testSecret)
		if err != nil {
			t.Fatal(err)
		}
		expectRevoked(t, e, old)
	})
}

// loginToken logs m in through the API (with the code when secret is set) and
// returns the token.
func (e *testEnv) loginToken(t *testing.T, m *merchant, password, secret string, clock *storetest.Clock) string {
	t.Helper()
	var extra []string
	if secret != "" {
		extra = append(extra, `"code": "`+code(t, secret, clock.Now())+`"`)
	}
	r := e.login(t, m.m.Email, password, extra...)
	expectStatus(t, r, 200)
	return r.obj(t)["token"].(string)
}

// signInWith signs b in as m with password, through the code step when two-step
// is on (secret set), with the code of the clock's next step, so it is not one
// used just before.
func (b *browser) signInWith(m *merchant, password, secret string) {
	b.t.Helper()
	p := b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {password}})
	if secret != "" {
		seeOther(b.t, p, "/dashboard/login/code?next=%2Fdashboard")
		p = b.post("/dashboard/login/code", url.Values{"code": {code(b.t, secret, b.e.clock.Now().Add(30*time.Second))}})
	}
	seeOther(b.t, p, "/dashboard")
}

// pendingSecret is the secret being enrolled that b's settings page shows.
func pendingSecret(t *testing.T, b *browser) string {
	t.Helper()
	p := b.get("/dashboard/settings").want(t, 200, `action="/dashboard/settings/two-step/enable"`, `name="password"`)
	return regexp.MustCompile(`<code class="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(p.body)[1]
}
