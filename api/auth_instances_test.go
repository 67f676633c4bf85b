package api_test

import (
	"net/url"
	"testing"

	"github.com/kassapay/kassa/store/storetest"
)

// TestSignOutEverywhereAcrossInstances: two instances on one PostgreSQL
// database. Signing out everywhere on one ends the tokens and dashboard sessions
// on the other at once (the first request after it is refused: well within the
// 1 s bound revoked API keys have), and a hold of the account made on one counts
// on the other.
func TestSignOutEverywhereAcrossInstances(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	a := newEnvOn(t, storetest.Open(t, cfg), nil)
	b := newEnvOn(t, storetest.Open(t, cfg), nil)
	m := a.newMerchant(false)
	tokenA := m.token
	tokenB := b.loginToken(t, m, "correct horse", "", nil)
	onA := a.browser()
	onA.signIn(m)
	for _, e := range []*testEnv{a, b} { // every token works on every instance
		for _, tok := range []string{tokenA, tokenB} {
			expectStatus(t, e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{"Authorization": "Bearer " + tok}}), 200)
		}
	}
	expectStatus(t, b.do(request{method: "POST", path: "/api/v1/auth/sign-out-everywhere",
		headers: map[string]string{"Authorization": "Bearer " + tokenB}}), 204)
	expectRevoked(t, a, tokenA)
	expectRevoked(t, a, tokenB)
	expectSignedOut(t, onA)

	// The per-account hold is in the store: failures on one instance hold the other.
	for range 5 {
		expectError(t, a.login(t, m.m.Email, "wrong horse"), 401, "authentication_error", "invalid_credentials", "")
	}
	expectError(t, b.login(t, m.m.Email, "correct horse"), 429, "rate_limit_error", "too_many_attempts", "")
	b.browser().post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}}).want(t, 429)
}
