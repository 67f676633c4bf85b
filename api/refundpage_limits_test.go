package api_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundPageLapsed: 30 days after its creation an unclaimed link says it
// ended and to contact the shop (no form; a claim posted then changes nothing),
// while a claimed refund's link still follows it. Both engines.
func TestRefundPageLapsed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		shop := m.m.CompanyName
		idA, pathA := claimLink(t, m, `{"amount_usd": 2}`)
		idB, pathB := claimLink(t, m, `{"amount_usd": 3}`)
		resp, _ := e.pageReq("POST", "/refund/"+idB, claimForm(pathB, payorAddress, true), nil)
		expectStatusCode(t, resp, 303)

		clock.Advance(kassa.RefundClaimTTL)
		resp, page := e.pageReq("GET", pathA, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("lapsed: %d", resp.StatusCode)
		}
		contains(t, page, "This refund link has ended", "Contact "+shop, "$2.00")
		lacks(t, page, `name="address"`, `http-equiv="refresh"`)
		resp, _ = e.pageReq("POST", "/refund/"+idA, claimForm(pathA, payorAddress, true), nil)
		expectStatusCode(t, resp, 303)
		if r := m.get("/api/v1/refunds/" + idA); r.obj(t)["status"] != "awaiting_address" {
			t.Fatalf("a lapsed claim changed the refund: %s", r.body)
		}
		_, page = e.pageReq("GET", pathA+"&lang=es", nil, nil)
		contains(t, page, "Este enlace de reembolso terminó")
		_, page = e.pageReq("GET", pathB, nil, nil)
		contains(t, page, "Your refund is on its way", payorAddress)
	})
}

// TestRefundPageRateLimit: the claim form takes from the payor's per-address
// bucket before the token is checked, so guessing tokens through the page is
// limited as through the API: past the burst a 429 page in words, and the
// refund unchanged.
func TestRefundPageRateLimit(t *testing.T) {
	limits := httpx.RateLimits{Rate: 1e6, Burst: 1e6, CreateRate: 1e6, CreateBurst: 1e6, LoginRate: 1e6, LoginBurst: 1e6,
		PayorRate: 1e6, PayorBurst: 1e6, PayorAddrRate: 0.001, PayorAddrBurst: 2,
		VerifyRate: 1e6, VerifyBurst: 1e6, VerifyAddrRate: 1e6, VerifyAddrBurst: 1e6}
	e := newEnv(t, storetest.SQLiteConfig(t), withLimits(limits))
	m := e.newMerchant(false)
	id, path := claimLink(t, m, `{"amount_usd": 1}`)
	for i := 0; i < 2; i++ {
		resp, _ := e.pageReq("POST", "/refund/"+id, claimForm("/refund/"+id+"?t=guess", payorAddress, true), nil)
		expectStatusCode(t, resp, 404)
	}
	resp, page := e.pageReq("POST", "/refund/"+id, claimForm(path, payorAddress, true), nil)
	expectStatusCode(t, resp, 429)
	contains(t, page, "Too many attempts")
	if resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if r := m.get("/api/v1/refunds/" + id); r.obj(t)["status"] != "awaiting_address" {
		t.Fatalf("a limited claim changed the refund: %s", r.body)
	}
	resp, _ = e.pageReq("GET", path, nil, nil) // reading the page is not limited
	expectStatusCode(t, resp, 200)
}
