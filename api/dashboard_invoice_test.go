package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math/big"
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

// TestDashboardInvoiceDetail: after devnet payments the page shows the
// timeline (detected → confirmations → paid), the payments, a transaction in a
// block linked to the network's explorer, and the invoice's webhook deliveries,
// one of which is resent.
func TestDashboardInvoiceDetail(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		hook := b.post("/dashboard/developers/webhooks", url.Values{"url": {"https://hooks.example.com/k"}, "events": {"*"}})
		id := m.createInvoice(`{"amount_usd": 10, "description": "Blue mug", "metadata": {"order": "A-17"}}`)["invoice_id"].(string)
		page := "/dashboard/invoices/" + id
		b.get(page).want(t, 200, "No payment yet.", "Invoice created", `data-live-src="`+page+`/live"`, "A-17",
			"shown once", `id="deliveries"`, "invoice.created", ">Resend<")

		hash := "0x" + strings.Repeat("cd", 32)
		pay := func(body string) map[string]any {
			t.Helper()
			r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body, headers: withKey(m.key)})
			expectStatus(t, r, 201)
			return r.obj(t)["payment"].(map[string]any)
		}
		rec := pay(`{"amount_usd": 4, "status": "pending", "tx_hash": "` + hash + `"}`)
		// The receipt in words, its token amount beside the USD value; the
		// transaction hash whole in one unbroken line (cut by CSS, title kept).
		b.get(page).want(t, 200, "Payment detected: $4.00 on bsc-testnet", `title="`+hash+`">`+hash+"</code>", "$0.00 of $10.00",
			`data-label="Amount">4 USDT ($4.00)</td>`, `(API status: pending)">Confirming</span>`,
			`(API status: pending)">Waiting to settle</span>`)
		pay(`{"amount_usd": 4, "tx_hash": "` + hash + `"}`)
		b.get(page).want(t, 200, "Payment of $4.00 confirmed", "Invoice underpaid: $4.00 of $10.00 paid", "$4.00 of $10.00")

		// The rest arrives in a block: its hash links to the explorer.
		block := "0x" + strings.Repeat("ef", 32)
		tx := "0x" + strings.Repeat("12", 32)
		tokenID := int64(rec["token_id"].(float64))
		if _, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: id,
			Network: "bsc-testnet", TxHash: tx, TokenID: tokenID, FromAddress: "0x" + strings.Repeat("ab", 20),
			AmountUnits: big.NewInt(6_000_000_000_000_000_000), AmountUSD: 6000, Confirmations: 15, Confirmed: true,
			BlockNumber: 100, BlockHash: block}); err != nil {
			t.Fatal(err)
		}
		p := b.get(page).want(t, 200, "badge paid", "Paid in full", "$10.00 of $10.00", "6 USDT ($6.00)",
			// deliveries name the endpoint by its URL
			`data-label="Endpoint"><a class="ident" href="/dashboard/developers/webhooks/`, `>https://hooks.example.com/k</a>`,
			`href="https://testnet.bscscan.com/tx/`+tx+`"`, "Paid at")
		if strings.Contains(p.body, `action="`+page+`/cancel"`) {
			t.Fatalf("a paid invoice offers Cancel")
		}
		// Oldest first: created, then detected, then paid.
		created, detected, paid := strings.Index(p.body, "Invoice created"), strings.Index(p.body, "Payment detected"), strings.Index(p.body, "Paid in full")
		if !(created < detected && detected < paid) {
			t.Fatalf("timeline out of order: %d %d %d", created, detected, paid)
		}

		// Resend one of the invoice's deliveries.
		rows := regexp.MustCompile(`name="event_id" value="([^"]+)"><input type="hidden" name="endpoint_id" value="([^"]+)"`).FindAllStringSubmatch(p.body, -1)
		if len(rows) < 3 || !strings.HasSuffix(hook.location, rows[0][2]) {
			t.Fatalf("%d delivery rows for endpoint %q", len(rows), hook.location)
		}
		r := b.post(page+"/resend", url.Values{"event_id": {rows[0][1]}, "endpoint_id": {rows[0][2]}})
		if r.status != http.StatusSeeOther || r.location != page+"?done=resent#deliveries" {
			t.Fatalf("resend: %d to %q\n%s", r.status, r.location, r.body)
		}
		again := b.get(page+"?done=resent").want(t, 200, "queued again")
		if n := strings.Count(again.body, `name="endpoint_id"`); n != len(rows)+1 {
			t.Fatalf("%d deliveries after a resend, want %d", n, len(rows)+1)
		}
		b.post(page+"/resend", url.Values{"event_id": {"evt_nope"}, "endpoint_id": {rows[0][2]}}).want(t, 404)

		// Another merchant: not found; another site: refused.
		ob := e.browser()
		ob.signIn(e.newMerchant(false))
		ob.get(page).want(t, 404)
		ob.get(page+"/live").want(t, 404)
		ob.post(page+"/resend", url.Values{"event_id": {rows[0][1]}, "endpoint_id": {rows[0][2]}}).want(t, 404)
		b.post(page+"/resend", url.Values{"event_id": {rows[0][1]}, "endpoint_id": {rows[0][2]}}, "Origin: http://evil.example").want(t, 403)
	})
}

// liveView is the JSON the invoice page's live stream sends.
type liveView struct {
	Status   string `json:"status"`
	Paid     string `json:"paid"`
	Payments []struct {
		Amount, TxHash string
		Status         struct{ Code, Label string }
	} `json:"payments"`
	Label    string                  `json:"status_label"`
	Timeline []struct{ Text string } `json:"timeline"`
}

// TestDashboardInvoiceLive: the live stream sends the page's state at once and
// again after a devnet payment, woken by the event hub or by its poll.
func TestDashboardInvoiceLive(t *testing.T) {
	eachWaker(t, func(t *testing.T, _ string, e *testEnv) {
		m := e.newMerchant(false)
		b := e.browser()
		if p := b.get("/dashboard/invoices/" + kassa.NewUUID() + "/live"); p.status != http.StatusSeeOther {
			t.Fatalf("signed out: %d", p.status)
		}
		b.signIn(m)
		id := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/dashboard/invoices/"+id+"/live", nil)
		resp, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("live: %d %q", resp.StatusCode, ct)
		}
		lines := bufio.NewReader(resp.Body)
		next := func() liveView {
			t.Helper()
			for {
				line, err := lines.ReadString('\n')
				if err != nil {
					t.Fatalf("reading the stream: %v", err)
				}
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					var v liveView
					if err := json.Unmarshal([]byte(data), &v); err != nil {
						t.Fatalf("%v: %s", err, data)
					}
					return v
				}
			}
		}
		if v := next(); v.Status != "unpaid" || len(v.Payments) != 0 || v.Paid != "$0.00 of $10.00" {
			t.Fatalf("first update %+v", v)
		}
		m.payInFull(id)
		v := next()
		for v.Status != "paid" { // the payment and the invoice may come as two updates
			v = next()
		}
		if len(v.Payments) != 1 || v.Payments[0].Amount != "10 USDT ($10.00)" || v.Paid != "$10.00 of $10.00" ||
			v.Label != "Paid" || v.Payments[0].Status != (struct{ Code, Label string }{"confirmed", "Confirmed"}) ||
			v.Timeline[len(v.Timeline)-1].Text != "Paid in full" {
			t.Fatalf("after the payment %+v", v)
		}
		cancel() // the server ends the stream when the client leaves
	})
}
