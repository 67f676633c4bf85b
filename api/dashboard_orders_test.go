package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// twoMugs is a cart of $55.35: $49.98, tax $4.12 and a $1.25 commerce fee.
const twoMugs = `[{"product_id":"B000000002","quantity":2}]`

// cancelKey is the idempotency key of an order page's cancel form.
func cancelKey(t *testing.T, p page) string {
	t.Helper()
	m := regexp.MustCompile(`name="idempotency_key" value="([0-9a-f-]{36})"`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no cancel form\n%.3000s", p.body)
	}
	return m[1]
}

// seeOther checks a form answer: 303 to location.
func seeOther(t *testing.T, p page, location string) {
	t.Helper()
	if p.status != http.StatusSeeOther || p.location != location {
		t.Fatalf("%d to %q, want 303 to %q\n%.2000s", p.status, p.location, location, p.body)
	}
}

// TestDashboardOrders: the list (newest first, status filter, cursor pages, an
// empty state), the detail, and the simulate actions moving an order along its
// timeline.
func TestDashboardOrders(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, clock := newCommerceEnv(t, cfg)
		s := e.newShopper()
		b := e.browser()
		b.signIn(s.merchant)
		b.get("/dashboard/orders").want(t, 200, "No orders yet", `href="/dashboard/orders" aria-current="page"`)
		first := s.checkout(t, twoMugs, "")
		clock.Advance(time.Second)
		second := s.checkout(t, `[{"product_id":"B000000003","quantity":1}]`, "")
		id1, id2 := first["orderId"].(string), second["orderId"].(string)

		// Statuses and the filter read in words; the API's value is in the title.
		list := b.get("/dashboard/orders").want(t, 200, "/dashboard/orders/"+id1, "$55.35", "cus_1",
			`<span class="badge pending_payment" title="The order&#39;s invoice is not paid yet. (API status: pending_payment)">Awaiting payment</span>`,
			`<a href="/dashboard/orders?status=delivery_confirmed" title="The carrier confirmed the delivery. (API status: delivery_confirmed)">Delivered</a>`,
			`(API status: cancelled)">Canceled</a>`)
		if strings.Index(list.body, id2) > strings.Index(list.body, id1) {
			t.Fatalf("the list is not newest first")
		}
		if p := b.get("/dashboard/orders?starting_after="+id2).want(t, 200, "/dashboard/orders/"+id1, `rel="prev"`); strings.Contains(p.body, "/dashboard/orders/"+id2) {
			t.Fatalf("the older page lists the newer order")
		}
		b.get("/dashboard/orders?status=pending_payment").want(t, 200, id1, id2)
		b.get("/dashboard/orders?status=shipped").want(t, 200, "No orders with the status Shipped.")
		b.get("/dashboard/orders?status=bogus").want(t, 400, "Unknown status bogus.")
		b.get("/dashboard/orders?starting_after=nope").want(t, 400)

		b.get("/dashboard/orders/"+id1).want(t, 200, "Ada Lovelace", "12 Main St Apt 4B", "San Francisco", "94103-1234",
			`href="/dashboard/invoices/`+first["invoiceId"].(string)+`"`, "$4.12", "Cancel order", "No refund.",
			`title="API status: payment_confirmed">Move to Paid</button>`, `title="API status: cancelled">Move to Canceled</button>`, "pending_payment")

		// Simulate to shipped: the invoice is paid and every stage is on the timeline.
		seeOther(t, b.post("/dashboard/orders/"+id1+"/simulate", url.Values{"to": {"shipped"}}), "/dashboard/orders/"+id1)
		d := b.get("/dashboard/orders/"+id1).want(t, 200, "badge shipped", "Simulated: payment_settled.",
			"Simulated: placed.", "Simulated: shipped.", "Move to Delivered", "1ZDEVNET")
		for stage, words := range map[string]string{"pending_payment": "Awaiting payment", "payment_confirmed": "Paid",
			"payment_settled": "Paid and settled", "placed": "Placed", "shipped": "Shipped"} {
			if !regexp.MustCompile(`<span class="badge ` + stage + `" title="[^"]*\(API status: ` + stage + `\)">` + words + `</span>`).MatchString(d.body) {
				t.Errorf("the timeline lacks %s in words (%s)", stage, words)
			}
		}
		if strings.Contains(d.body, "Cancel order") {
			t.Fatalf("a shipped order offers cancel")
		}
		b.get("/dashboard/invoices/"+first["invoiceId"].(string)).want(t, 200, "badge paid")
		b.post("/dashboard/orders/"+id1+"/simulate", url.Values{"to": {"cancelled"}}).want(t, 409)
		b.post("/dashboard/orders/"+id1+"/simulate", url.Values{"to": {"pending_payment"}}).want(t, 400, "transitionTo must be one of")
		b.post("/dashboard/orders/"+id1+"/simulate", url.Values{}).want(t, 400)
		b.get("/dashboard/orders?status=shipped").want(t, 200, id1)
	})
}

// TestDashboardOrderCancel: cancelling a paid devnet order shows its refund; a
// second submit of the same form is a replay, not a second cancel; a refund
// address the API refuses comes back by its field.
func TestDashboardOrderCancel(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()
		b := e.browser()
		b.signIn(s.merchant)
		res := s.checkout(t, twoMugs, "")
		path := "/dashboard/orders/" + res["orderId"].(string)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + res["invoiceId"].(string) + "/payments",
			headers: withKey(s.key)}), 201)

		form := b.get(path).want(t, 200, "badge payment_confirmed", `name="refund_address"`, "Cancel order")
		key := cancelKey(t, form)
		b.post(path+"/cancel", url.Values{"idempotency_key": {key}, "refund_address": {"0x12"}}).
			want(t, 400, `aria-invalid="true"`, "Enter an address such as 0x", `value="0x12"`)
		b.post(path+"/cancel", url.Values{}).want(t, 400, "reload the page")

		seeOther(t, b.post(path+"/cancel", url.Values{"idempotency_key": {key}}), path)
		seeOther(t, b.post(path+"/cancel", url.Values{"idempotency_key": {key}}), path) // the double submit
		b.post(path+"/cancel", url.Values{"idempotency_key": {key}, "refund_address": {wallet}}).want(t, 409)
		d := b.get(path).want(t, 200, "badge cancelled", "PENDING", "$54.10", "$1.25")
		if strings.Contains(d.body, "Cancel order") {
			t.Fatalf("a cancelled order offers cancel")
		}
		if n := strings.Count(d.body, "Order cancelled."); n != 1 {
			t.Fatalf("%d cancels on the timeline", n)
		}
		// A fresh form on a cancelled order: the service's own 409.
		b.post(path+"/cancel", url.Values{"idempotency_key": {kassa.NewUUID()}}).want(t, 409, "cannot be cancelled")

		seeOther(t, b.post(path+"/simulate", url.Values{"to": {"refunded"}}), path)
		d = b.get(path).want(t, 200, "badge refunded", "REFUNDED")
		if !regexp.MustCompile(`<dt>Transaction</dt><dd><code>0x[0-9a-f]{64}</code>`).MatchString(d.body) {
			t.Fatalf("the refund shows no tx hash\n%.4000s", d.body)
		}
	})
}

// TestDashboardOrderTenancyAndOrigin: another merchant's order is not found,
// for reading, cancelling and simulating; cross-origin posts are refused.
func TestDashboardOrderTenancyAndOrigin(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		owner, other := e.newShopper(), e.newShopper()
		path := "/dashboard/orders/" + owner.checkout(t, twoMugs, "")["orderId"].(string)
		b := e.browser()
		b.signIn(other.merchant)
		b.get(path).want(t, 404)
		b.post(path+"/cancel", url.Values{"idempotency_key": {kassa.NewUUID()}}).want(t, 404)
		b.post(path+"/simulate", url.Values{"to": {"shipped"}}).want(t, 404)
		b.get("/dashboard/orders/not-a-uuid").want(t, 404)
		if p := b.get("/dashboard/orders").want(t, 200, "No orders yet"); strings.Contains(p.body, path) {
			t.Fatalf("another merchant's order is listed")
		}

		mine := e.browser()
		mine.signIn(owner.merchant)
		key := cancelKey(t, mine.get(path).want(t, 200))
		for _, h := range []string{"Origin: https://evil.example", "Sec-Fetch-Site: cross-site"} {
			mine.post(path+"/cancel", url.Values{"idempotency_key": {key}}, h).want(t, 403, "another site")
			mine.post(path+"/simulate", url.Values{"to": {"shipped"}}, h).want(t, 403)
		}
		mine.get(path).want(t, 200, "badge pending_payment")
	})
}
