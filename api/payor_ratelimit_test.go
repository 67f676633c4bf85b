package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// unlimited is a rate no test request reaches; the payor tests lower one bucket
// at a time.
const unlimited = 1e6

// payorLimits are the limits of a payor rate test: every bucket out of reach but
// those set.
func payorLimits(set func(l *httpx.RateLimits)) envOption {
	l := httpx.RateLimits{Rate: unlimited, Burst: unlimited, CreateRate: unlimited, CreateBurst: unlimited,
		LoginRate: unlimited, LoginBurst: unlimited, PayorRate: unlimited, PayorBurst: unlimited,
		PayorAddrRate: unlimited, PayorAddrBurst: unlimited, VerifyRate: unlimited, VerifyBurst: unlimited,
		VerifyAddrRate: unlimited, VerifyAddrBurst: unlimited}
	set(&l)
	return withLimits(l)
}

// TestPayorRateLimits: the payor API's buckets, in memory and shared, on both
// engines. A session's requests empty its bucket (429 with Retry-After and the
// RateLimit headers) while another session's go on; a client address's empty its
// bucket whatever the session, bad signatures included; verify's POST has
// tighter buckets per session and per client (an address, or a merchant key). Every test
// request comes from 127.0.0.1.
func TestPayorRateLimits(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		for _, l := range limiters {
			t.Run(l.name, func(t *testing.T) { testPayorRateLimits(t, cfg, l.opt) })
		}
	})
}

func testPayorRateLimits(t *testing.T, cfg store.Config, opt envOption) {
	t.Helper()
	hash := "0x" + strings.Repeat("ab", 32)
	verifyBody := `{"tx_hash": "` + hash + `", "network": "bsc-testnet"}`
	tests := []struct {
		name   string
		limits func(l *httpx.RateLimits)
		run    func(t *testing.T, e *testEnv, m *merchant)
	}{
		{"per session", func(l *httpx.RateLimits) { l.PayorRate, l.PayorBurst = 1, 3 }, func(t *testing.T, e *testEnv, m *merchant) {
			ps, other := payorSession(t, m), payorSession(t, m)
			for range 3 {
				expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/payment-status", headers: ps}), 200)
			}
			for _, path := range []string{"/api/v1/payments/payment-status", "/api/v1/payments/invoice", "/api/v1/payments/available-tokens"} {
				expect429(t, e.do(request{method: "GET", path: path, headers: ps}))
			}
			expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: other}), 200)
			e.clock.Advance(time.Second)
			expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/payment-status", headers: ps}), 200)
		}},
		{"per address", func(l *httpx.RateLimits) { l.PayorAddrRate, l.PayorAddrBurst = 1, 4 }, func(t *testing.T, e *testEnv, m *merchant) {
			bad := payorSession(t, m)
			bad["X-Signature"] = strings.Repeat("0", 64)
			for range 2 {
				expectError(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: bad}),
					401, "authentication_error", "invalid_session", "")
			}
			for range 2 {
				expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: payorSession(t, m)}), 200)
			}
			fresh := payorSession(t, m)
			expect429(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: fresh}))
			expect429(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: bad}))
			e.clock.Advance(time.Second)
			expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: fresh}), 200)
		}},
		{"verify per session", func(l *httpx.RateLimits) { l.VerifyRate, l.VerifyBurst = 0.2, 2 }, func(t *testing.T, e *testEnv, m *merchant) {
			created := m.createInvoice(`{"amount_usd": 5}`)
			ps, path := session(created), "/api/v1/invoice/"+created["invoice_id"].(string)+"/verify"
			for range 2 {
				expectStatus(t, e.do(request{method: "POST", path: path, body: verifyBody, headers: ps}), 200)
			}
			r := e.do(request{method: "POST", path: path, body: verifyBody, headers: ps})
			expect429(t, r)
			if r.header.Get("RateLimit-Limit") != "2" || r.header.Get("Retry-After") != "5" {
				t.Errorf("verify's 429: limit %s, retry after %s", r.header.Get("RateLimit-Limit"), r.header.Get("Retry-After"))
			}
			// Reading the status is not a look-up: the GET and the other payor
			// routes go on.
			expectStatus(t, e.do(request{method: "GET", path: path, headers: ps}), 200)
			expectStatus(t, e.do(request{method: "GET", path: "/api/v1/payments/payment-status", headers: ps}), 200)
			// A merchant key is not a session: its verify goes on.
			expectStatus(t, e.do(request{method: "POST", path: path, body: verifyBody, headers: withKey(m.key)}), 200)
			e.clock.Advance(5 * time.Second)
			expectStatus(t, e.do(request{method: "POST", path: path, body: verifyBody, headers: ps}), 200)
		}},
		{"verify per client", func(l *httpx.RateLimits) { l.VerifyAddrRate, l.VerifyAddrBurst = 1, 3 }, func(t *testing.T, e *testEnv, m *merchant) {
			post := func(key bool) *response {
				created := m.createInvoice(`{"amount_usd": 5}`)
				h := session(created)
				if key {
					h = withKey(m.key)
				}
				return e.do(request{method: "POST", path: "/api/v1/invoice/" + created["invoice_id"].(string) + "/verify",
					body: verifyBody, headers: h})
			}
			// A client address's sessions share its bucket...
			for range 3 {
				expectStatus(t, post(false), 200)
			}
			expect429(t, post(false))
			// ...and a merchant key, for whatever invoices, has its own.
			for range 3 {
				expectStatus(t, post(true), 200)
			}
			expect429(t, post(true))
			e.clock.Advance(time.Second)
			expectStatus(t, post(true), 200)
		}},
	}
	// The subtests may share a database, and with it the shared budgets of
	// 127.0.0.1: each starts an hour after the last, when they have refilled.
	clock := storetest.NewClock(time.Now())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Advance(time.Hour)
			e := newEnvClock(t, cfg, clock, payorLimits(tt.limits), opt)
			tt.run(t, e, e.newMerchant(false))
		})
	}
}

// payorSession creates an invoice of m and returns its payment session headers.
func payorSession(t *testing.T, m *merchant) map[string]string {
	t.Helper()
	return session(m.createInvoice(`{"amount_usd": 5}`))
}
