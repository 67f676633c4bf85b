package api_test

import (
	"strconv"
	"testing"
	"time"

	"kassa/api/httpx"
	"kassa/store"
	"kassa/store/storetest"
)

// expect429 checks a rate-limited response and its headers.
func expect429(t *testing.T, r *response) {
	t.Helper()
	expectError(t, r, 429, "rate_limit_error", "rate_limit_exceeded", "")
	retry, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if r.header.Get("RateLimit-Remaining") != "0" || r.header.Get("RateLimit-Limit") == "" || r.header.Get("RateLimit-Reset") == "" {
		t.Errorf("RateLimit headers %v", r.header)
	}
}

func TestRateLimits(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock, withLimits(httpx.RateLimits{
			Rate: 1, Burst: 3, CreateRate: 1, CreateBurst: 1, LoginRate: 1, LoginBurst: 1000}))
		m := e.newMerchant(false)
		other := e.newMerchant(false)

		for i := 2; i >= 0; i-- {
			r := m.get("/api/v1/invoices")
			expectStatus(t, r, 200)
			if r.header.Get("RateLimit-Limit") != "3" || r.header.Get("RateLimit-Remaining") != strconv.Itoa(i) {
				t.Errorf("request %d: limit %s remaining %s", 3-i, r.header.Get("RateLimit-Limit"), r.header.Get("RateLimit-Remaining"))
			}
		}
		expect429(t, m.get("/api/v1/invoices"))
		expectStatus(t, other.get("/api/v1/invoices"), 200) // buckets are per key

		clock.Advance(time.Second)
		expectStatus(t, m.get("/api/v1/invoices"), 200)

		// Invoice creation has its own, smaller bucket on top.
		clock.Advance(10 * time.Second)
		expectStatus(t, m.postInvoice(`{"amount_usd": 1}`, newIdemKey()), 201)
		r := m.postInvoice(`{"amount_usd": 1}`, newIdemKey())
		expect429(t, r)
		if r.header.Get("RateLimit-Limit") != "1" {
			t.Errorf("create 429 reports limit %s", r.header.Get("RateLimit-Limit"))
		}
	})
}

func TestLoginRateLimit(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock, withLimits(httpx.RateLimits{LoginRate: 1, LoginBurst: 2}))
		e.newMerchant(false) // one login
		body := `{"email":"nobody@example.com","password":"guess guess"}`
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/auth/login", body: body}), 401)
		expect429(t, e.do(request{method: "POST", path: "/api/v1/auth/login", body: body}))
		clock.Advance(time.Second)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/auth/login", body: body}), 401)
	})
}
