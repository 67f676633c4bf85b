package api_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestHealthAndRouting(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		for _, path := range []string{"/healthz", "/readyz"} {
			r := e.do(request{method: "GET", path: path})
			expectStatus(t, r, 200)
			if r.obj(t)["status"] != "ok" {
				t.Errorf("%s: %s", path, r.body)
			}
		}
		r := e.do(request{method: "GET", path: "/api/v1/nothing-here"})
		expectError(t, r, 404, "not_found_error", "route_not_found", "")
		r = e.do(request{method: "DELETE", path: "/api/v1/invoices"})
		expectError(t, r, 405, "invalid_request_error", "method_not_allowed", "")
		if r.header.Get("Allow") == "" {
			t.Errorf("405 without Allow header")
		}
		r = e.do(request{method: "GET", path: "/api/v1/invoices/a/b/c", headers: withKey(e.newMerchant(false).key)})
		expectError(t, r, 404, "not_found_error", "route_not_found", "")
	})
}

func TestHealthUnavailable(t *testing.T) {
	srv := httptest.NewServer(checked(t, api.New(api.Config{Health: func(context.Context) error { return errors.New("down") }})))
	defer srv.Close()
	e := &testEnv{t: t, srv: srv}
	r := e.do(request{method: "GET", path: "/readyz"})
	expectStatus(t, r, 503)
	if r.obj(t)["status"] != "unavailable" {
		t.Errorf("body %s", r.body)
	}
}

func TestLogin(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		r := e.do(request{method: "POST", path: "/api/v1/auth/login",
			body: `{"email":"` + m.m.Email + `","password":"correct horse"}`})
		expectStatus(t, r, 200)
		body := r.obj(t)
		if body["token_type"] != "Bearer" || body["expires_at"] == nil {
			t.Errorf("login body %s", r.body)
		}
		var claims jwt.RegisteredClaims
		tok, err := jwt.ParseWithClaims(body["token"].(string), &claims,
			func(*jwt.Token) (any, error) { return testSecret, nil })
		if err != nil || tok.Method.Alg() != "HS256" {
			t.Fatalf("token: %v", err)
		}
		if claims.Subject != strconv.FormatInt(m.m.ID, 10) || claims.Issuer != "kassa" ||
			claims.ExpiresAt.Sub(claims.IssuedAt.Time) != 12*time.Hour {
			t.Errorf("claims %+v", claims)
		}
		r = e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{"Authorization": "Bearer " + body["token"].(string)}})
		expectStatus(t, r, 200)

		for _, tc := range []struct{ name, body string }{
			{"wrong password", `{"email":"` + m.m.Email + `","password":"wrong horse"}`},
			{"unknown email", `{"email":"nobody@example.com","password":"correct horse"}`},
		} {
			r := e.do(request{method: "POST", path: "/api/v1/auth/login", body: tc.body})
			expectError(t, r, 401, "authentication_error", "invalid_credentials", "")
		}
		r = e.do(request{method: "POST", path: "/api/v1/auth/login", body: `{"email":"` + m.m.Email + `"}`})
		expectError(t, r, 400, "invalid_request_error", "missing_param", "password")
		r = e.do(request{method: "POST", path: "/api/v1/auth/login", body: `{"email":5,"password":"x"}`})
		expectError(t, r, 400, "invalid_request_error", "invalid_type", "email")
		r = e.do(request{method: "POST", path: "/api/v1/auth/login", body: `{"email":`})
		expectError(t, r, 400, "invalid_request_error", "invalid_json", "")
	})
}

func TestBadTokens(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		sign := func(secret []byte, claims jwt.RegisteredClaims, method jwt.SigningMethod) string {
			s, err := jwt.NewWithClaims(method, claims).SignedString(secret)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		now := time.Now()
		good := jwt.RegisteredClaims{Subject: strconv.FormatInt(m.m.ID, 10), Issuer: "kassa",
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}
		expired, noExp, otherIss, otherSub := good, good, good, good
		expired.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Minute))
		noExp.ExpiresAt = nil
		otherIss.Issuer = "someone"
		otherSub.Subject = "999999"
		for name, token := range map[string]string{
			"garbage":        "not.a.jwt",
			"wrong secret":   sign([]byte("other secret"), good, jwt.SigningMethodHS256),
			"expired":        sign(testSecret, expired, jwt.SigningMethodHS256),
			"no expiry":      sign(testSecret, noExp, jwt.SigningMethodHS256),
			"other issuer":   sign(testSecret, otherIss, jwt.SigningMethodHS256),
			"unknown sub":    sign(testSecret, otherSub, jwt.SigningMethodHS256),
			"other algoritm": sign(testSecret, good, jwt.SigningMethodHS512),
		} {
			for _, path := range []string{"/api/v1/merchant", "/api/v1/invoices"} {
				r := e.do(request{method: "GET", path: path, headers: map[string]string{"Authorization": "Bearer " + token}})
				if r.status != 401 || r.errorDetail(t)["code"] != "invalid_token" {
					t.Errorf("%s on %s: %d %s", name, path, r.status, r.body)
				}
			}
		}
		r := e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{"Authorization": "Basic abc"}})
		expectError(t, r, 401, "authentication_error", "invalid_token", "")
		// A token without the credential version (cv) is one issued before it existed.
		r = e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{
			"Authorization": "Bearer " + sign(testSecret, good, jwt.SigningMethodHS256)}})
		expectError(t, r, 401, "authentication_error", "token_revoked", "")
		withVersion, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": good.Subject, "iss": good.Issuer,
			"iat": good.IssuedAt.Unix(), "exp": good.ExpiresAt.Unix(), "cv": m.m.CredentialVersion}).SignedString(testSecret)
		if err != nil {
			t.Fatal(err)
		}
		r = e.do(request{method: "GET", path: "/api/v1/merchant", headers: map[string]string{"Authorization": "Bearer " + withVersion}})
		expectStatus(t, r, 200)
	})
}

func TestInvoiceAuth(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		commerce := m.createKey(`{"scope":"commerce"}`)["api_key"].(string)
		for _, tc := range []struct {
			name            string
			headers         map[string]string
			status          int
			code, typ, parm string
		}{
			{"no credentials", nil, 401, "missing_credentials", "authentication_error", ""},
			{"unknown key", withKey("kassa_devnet_merchant_" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 401, "invalid_api_key", "authentication_error", ""},
			{"malformed key", withKey("sk_test_123"), 401, "invalid_api_key", "authentication_error", ""},
			{"commerce key", withKey(commerce), 403, "wrong_key_scope", "permission_error", ""},
			{"commerce header", map[string]string{"X-Commerce-Api-Key": commerce}, 403, "wrong_key_scope", "permission_error", ""},
			{"bad environment", map[string]string{"Authorization": "Bearer " + m.token, "X-Environment": "testnet"}, 400, "invalid_environment", "invalid_request_error", "x-environment"},
			{"mainnet not enabled", map[string]string{"Authorization": "Bearer " + m.token, "X-Environment": "mainnet"}, 403, "mainnet_not_enabled", "permission_error", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(request{method: "GET", path: "/api/v1/invoices", headers: tc.headers})
				expectError(t, r, tc.status, tc.typ, tc.code, tc.parm)
			})
		}
		// A key in Authorization: Bearer works like x-api-key.
		r := e.do(request{method: "GET", path: "/api/v1/invoices", headers: map[string]string{"Authorization": "Bearer " + m.key}})
		expectStatus(t, r, 200)
		// A dashboard token creates devnet invoices by default.
		h := m.jwt()
		h["Idempotency-Key"] = newIdemKey()
		r = e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 5}`, headers: h})
		expectStatus(t, r, 201)
		if inv := r.obj(t)["invoice"].(map[string]any); inv["environment"] != "devnet" {
			t.Errorf("environment %v", inv["environment"])
		}
	})
}

func TestMainnetToken(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(true)
		h := m.jwt()
		h["X-Environment"] = "mainnet"
		h["Idempotency-Key"] = newIdemKey()
		r := e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 5}`, headers: h})
		expectStatus(t, r, 201)
		if inv := r.obj(t)["invoice"].(map[string]any); inv["environment"] != "mainnet" {
			t.Errorf("environment %v", inv["environment"])
		}
		key := m.createKey(`{"environment":"mainnet"}`)
		if key["environment"] != "mainnet" {
			t.Fatalf("key %v", key)
		}
		inv := (&merchant{e: e, m: m.m, token: m.token, key: key["api_key"].(string)}).createInvoice(`{"amount_usd": 1}`)
		if inv["invoice"].(map[string]any)["environment"] != "mainnet" {
			t.Errorf("mainnet key made %v", inv["invoice"])
		}
	})
}

// TestReadyzWarnings: /readyz stays 200 and ready while reporting what an
// operator should see to (a short gas wallet); /healthz does not carry them.
func TestReadyzWarnings(t *testing.T) {
	tests := []struct {
		name     string
		warnings func() []string
		want     []string
	}{
		{"none configured", nil, nil},
		{"none now", func() []string { return nil }, nil},
		{"a short gas wallet", func() []string { return []string{"gas wallet 0xabc on devchain (devnet) holds 0 ETH"} },
			[]string{"gas wallet 0xabc on devchain (devnet) holds 0 ETH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(checked(t, api.New(api.Config{Health: func(context.Context) error { return nil }, Warnings: tt.warnings})))
			defer srv.Close()
			e := &testEnv{t: t, srv: srv}
			r := e.do(request{method: "GET", path: "/readyz"})
			expectStatus(t, r, 200)
			body := r.obj(t)
			got, _ := body["warnings"].([]any)
			if body["status"] != "ok" || len(got) != len(tt.want) {
				t.Fatalf("body %s, want warnings %q", r.body, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("warning %q, want %q", got[i], tt.want[i])
				}
			}
			if h := e.do(request{method: "GET", path: "/healthz"}); h.obj(t)["warnings"] != nil {
				t.Errorf("/healthz body %s", h.body)
			}
		})
	}
}

// TestReadyzDraining: once the instance drains, /readyz is 503 {"status":"draining"}
// (a proxy's health check takes it out) while /healthz stays 200 (the process lives).
func TestReadyzDraining(t *testing.T) {
	var draining atomic.Bool
	srv := httptest.NewServer(api.New(api.Config{Health: func(context.Context) error { return nil }, Draining: draining.Load}))
	defer srv.Close()
	e := &testEnv{t: t, srv: srv}
	for _, tt := range []struct {
		draining bool
		status   int
		body     string
	}{{false, 200, "ok"}, {true, 503, "draining"}} {
		draining.Store(tt.draining)
		r := e.do(request{method: "GET", path: "/readyz"})
		expectStatus(t, r, tt.status)
		if got := r.obj(t)["status"]; got != tt.body {
			t.Errorf("draining %v: /readyz status %v, want %q", tt.draining, got, tt.body)
		}
		expectStatus(t, e.do(request{method: "GET", path: "/healthz"}), 200)
	}
}
