package api_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardOverviewNetAndFailing: the overview's volume is net of refunds,
// a refund counting on the day it was made; its table lists only the days with
// money, newest first; and a webhook endpoint refusing connections shows at once
// as a retrying delivery, then as failed once it gives up (issue 37, findings 5
// and 12).
func TestDashboardOverviewNetAndFailing(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, clock := newCommerceEnv(t, cfg)
		s := e.newShopper()
		b := e.browser()
		b.signIn(s.merchant)

		// Day 1: an order of two mugs ($55.35) and a $10 invoice paid.
		res := s.checkout(t, twoMugs, "")
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + res["invoiceId"].(string) + "/payments",
			headers: withKey(s.key)}), 201)
		s.payInFull(s.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string))
		day1 := clock.Now()
		b.get("/dashboard").want(t, 200, "$65.35", "2 paid invoices<", dayRow(day1, 2, "—", "$65.35"))

		// Day 2: the order is cancelled; $54.10 goes back (the $1.25 fee is kept).
		clock.Advance(24 * time.Hour)
		b.signIn(s.merchant)
		path := "/dashboard/orders/" + res["orderId"].(string)
		seeOther(t, b.post(path+"/cancel", url.Values{"idempotency_key": {cancelKey(t, b.get(path))}}), path)
		day2 := clock.Now()
		p := b.get("/dashboard").want(t, 200, `<p class="big">$11.25</p><p>2 paid invoices, 1 refund</p>`,
			dayRow(day2, 0, "$54.10", "-$54.10"), dayRow(day1, 2, "—", "$65.35"), "$11.25 in total")
		if got, want := dayRows(p.body), []string{day2.UTC().Format(time.DateOnly), day1.UTC().Format(time.DateOnly)}; !slices.Equal(got, want) {
			t.Fatalf("rows %v, want %v (newest first, no empty day)", got, want)
		}

		// A webhook endpoint that refuses connections: its delivery retries.
		hook := b.post("/dashboard/developers/webhooks", url.Values{"url": {"https://hooks.example.com/down"}, "events": {"invoice.created"}})
		if hook.status != http.StatusSeeOther {
			t.Fatalf("create endpoint: %d", hook.status)
		}
		s.createInvoice(`{"amount_usd": 3}`)
		jobs, err := e.db.ClaimWebhookJobs(context.Background(), 10, time.Minute)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("claimed %d jobs: %v", len(jobs), err)
		}
		res2 := delivery.Result{Error: "dial tcp: connection refused"}
		if err := e.db.FinishWebhookAttempt(context.Background(), jobs[0],
			kassa.WebhookAttempt{At: clock.Now(), Error: res2.Error}, res2); err != nil {
			t.Fatal(err)
		}
		b.get("/dashboard").want(t, 200, "Failing webhooks", failingTile(1, 0))
		// Disabled, it gives up: failed now.
		b.post(hook.location+"/disable", url.Values{})
		b.get("/dashboard").want(t, 200, failingTile(0, 1))
	})
}
