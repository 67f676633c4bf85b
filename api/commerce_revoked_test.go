package api_test

import (
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestCommerceRevokedJWT: on the commerce API a dashboard JWT is the wrong kind
// of credential (403 wrong_key_scope) while it is current, and a revoked one is
// 401 token_revoked there as everywhere, not 403.
func TestCommerceRevokedJWT(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()
		status := request{method: "GET", path: "/api/commerce/status", headers: s.jwt()}
		expectError(t, e.do(status), 403, "permission_error", "wrong_key_scope", "")
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/auth/sign-out-everywhere", headers: s.jwt()}), 204)
		expectError(t, e.do(status), 401, "authentication_error", "token_revoked", "")
	})
}
