package api_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
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

// withSharedLimits keeps the rate budgets in the store, as serve does on PostgreSQL.
func withSharedLimits() envOption {
	return func(c *api.Config) { c.RateStore = c.Merchants.(*store.DB) }
}

// limiters are the two places rate budgets live; both answer the same headers.
var limiters = []struct {
	name string
	opt  envOption
}{{"memory", func(*api.Config) {}}, {"shared", withSharedLimits()}}

func TestRateLimits(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		for _, l := range limiters {
			t.Run(l.name, func(t *testing.T) { testRateLimits(t, cfg, l.opt) })
		}
	})
}

// testRateLimits checks the buckets and their headers with the limiter opt picks.
func testRateLimits(t *testing.T, cfg store.Config, opt envOption) {
	t.Helper()
	clock := storetest.NewClock(time.Now())
	e := newEnvClock(t, cfg, clock, withLimits(httpx.RateLimits{
		Rate: 1, Burst: 3, CreateRate: 1, CreateBurst: 1, LoginRate: 1, LoginBurst: 1000}), opt)
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
	if r.header.Get("RateLimit-Limit") != "1" || r.header.Get("Retry-After") != "1" {
		t.Errorf("create 429 reports limit %s, retry after %s", r.header.Get("RateLimit-Limit"), r.header.Get("Retry-After"))
	}
}

// TestRateLimitAcrossInstances: two API instances on one database serve one key.
// With the budgets shared they admit between them the burst plus rate×time, as
// one instance would (within 10 %); in memory each has its own and they admit twice that.
func TestRateLimitAcrossInstances(t *testing.T) {
	const rate, burst, seconds, perStep = 10, 20, 5, 40
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		for _, l := range []struct {
			name  string
			opt   envOption
			times int // how many one instance's budget the two admit
		}{{"shared", withSharedLimits(), 1}, {"memory", func(*api.Config) {}, 2}} {
			t.Run(l.name, func(t *testing.T) {
				clock := storetest.NewClock(time.Now())
				limits := withLimits(httpx.RateLimits{Rate: rate, Burst: burst, LoginBurst: 1000})
				a := newEnvClock(t, cfg, clock, limits, l.opt)
				m := a.newMerchant(false)
				clock.Advance(time.Minute) // the sign-up's requests refilled
				b := newEnvClock(t, cfg, clock, limits, l.opt)
				onB := &merchant{e: b, m: m.m, token: m.token, key: m.key}
				admitted := 0
				for step := 0; step <= seconds; step++ {
					for i := range perStep {
						c := m
						if i%2 == 1 {
							c = onB
						}
						if r := c.get("/api/v1/invoices"); r.status == 200 {
							admitted++
						} else {
							expect429(t, r)
						}
					}
					clock.Advance(time.Second)
				}
				want := l.times * (burst + rate*seconds)
				if d := admitted - want; d*10 > want || -d*10 > want {
					t.Fatalf("two instances admitted %d requests of one key, want %d within 10 %%", admitted, want)
				}
			})
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
