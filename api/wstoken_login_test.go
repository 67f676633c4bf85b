package api_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// jwtExpiry is the expiry of a dashboard JWT, read without checking it.
func jwtExpiry(t *testing.T, token string) time.Time {
	t.Helper()
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil || claims.ExpiresAt == nil {
		t.Fatalf("parse JWT: %v", err)
	}
	return claims.ExpiresAt.Time
}

// TestWSTokenFromLoginEndsWithIt: a WebSocket token minted with a dashboard JWT
// expires no later than the JWT, and after a sign-out everywhere it opens no
// stream (401 token_revoked) and the stream it opened is closed 4003; streams of
// API keys go on.
func TestWSTokenFromLoginEndsWithIt(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		minted := e.mintToken(m.jwt(), `{"scope":"merchant","ttl_seconds":86400}`)
		exp, err := time.Parse(time.RFC3339, minted["expires_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if want := jwtExpiry(t, m.token); !exp.Equal(want) {
			t.Errorf("token expires_at %v, want the JWT's expiry %v (not 24 h)", exp, want)
		}
		token := minted["token"].(string)
		parsed, err := kassa.NewWSTokenSigner(testSecret).Parse(token, time.Now())
		if err != nil || parsed.ExpiresAt != exp.Unix() {
			t.Fatalf("signed expiry %d (%v), want %d", parsed.ExpiresAt, err, exp.Unix())
		}
		byLogin := e.dial("/ws/merchant/events?token="+url.QueryEscape(token), nil)
		byKey := e.dial("/ws/merchant/events", withKey(m.key))
		id := m.newInvoice()
		invoiceEvent(t, byLogin.next(), "invoice.created", id)
		invoiceEvent(t, byKey.next(), "invoice.created", id)

		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/auth/sign-out-everywhere", headers: m.jwt()}), 204)
		if ce := byLogin.closed(); ce.Code != 4003 || ce.Reason != "token revoked" {
			t.Errorf("stream of the login's token after sign-out everywhere: close %d %q", ce.Code, ce.Reason)
		}
		expectError(t, e.do(request{method: "GET", path: "/ws/merchant/events?token=" + url.QueryEscape(token)}),
			401, "authentication_error", "token_revoked", "")
		id = m.newInvoice()
		invoiceEvent(t, byKey.next(), "invoice.created", id)

		// A token of a login without a credential version (minted before the
		// upgrade, or forged without one) opens nothing either.
		bare := kassa.NewWSTokenSigner(testSecret).Mint(kassa.WSToken{MerchantID: m.m.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, ExpiresAt: time.Now().Unix() + 600})
		expectError(t, e.do(request{method: "GET", path: "/ws/merchant/events?token=" + url.QueryEscape(bare)}),
			401, "authentication_error", "token_revoked", "")
	})
}
