package api_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store/storetest"
)

// TestPaymentPageEvents reads the page's Server-Sent Events: the status at once,
// then each change (pending, then confirmed) as it happens, until paid; woken by
// the event hub (the invoice's events only, stream.KeyStream) or by its poll.
func TestPaymentPageEvents(t *testing.T) {
	eachWaker(t, func(t *testing.T, waker string, e *testEnv) {
		m := e.newMerchant(false)
		inv := m.createInvoice(`{"amount_usd": 8}`)
		id, session, sig := inv["invoice_id"].(string), inv["session_token"].(string), inv["signature"].(string)

		if resp, _ := e.pageReq("GET", "/pay/"+id+"/events?session="+session+"&signature=00", nil, nil); resp.StatusCode != 401 {
			t.Fatalf("events with a bad signature: %d", resp.StatusCode)
		}
		resp, err := http.Get(e.srv.URL + "/pay/" + id + "/events?" + url.Values{"session": {session}, "signature": {sig}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
		}
		lines := bufio.NewScanner(resp.Body)
		next := func() map[string]any {
			t.Helper()
			for lines.Scan() {
				if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
					var st map[string]any
					if err := json.Unmarshal([]byte(data), &st); err != nil {
						t.Fatal(err)
					}
					return st
				}
			}
			t.Fatalf("stream ended: %v", lines.Err())
			return nil
		}
		if st := next(); st["status"] != "unpaid" || st["amount_remaining"] != float64(8000) {
			t.Fatalf("first event %v", st)
		}
		hash := "0x" + strings.Repeat(map[string]string{"hub": "cd", "poll": "ce"}[waker], 32) // one store: a hash each
		pay := func(body string) {
			t.Helper()
			expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body,
				headers: withKey(m.key)}), 201)
		}
		pay(`{"status": "pending", "tx_hash": "` + hash + `"}`)
		if st := next(); st["amount_pending"] != float64(8000) || st["payments"].([]any)[0].(map[string]any)["status"] != "pending" {
			t.Fatalf("pending event %v", st)
		}
		_, page := e.pageReq("GET", "/pay/"+id+"?session="+session+"&signature="+sig, nil, nil)
		contains(t, page, "Payment detected", "pending · 0/")
		pay(`{"tx_hash": "` + hash + `"}`)
		if st := next(); st["status"] != "paid" {
			t.Fatalf("paid event %v", st)
		}
		for lines.Scan() { // the stream ends once the invoice is paid
			if strings.HasPrefix(lines.Text(), "data: ") {
				t.Fatalf("stream went on: %q", lines.Text())
			}
		}
	})
}

// TestPaymentPageUnavailableToken: a token without a rate is shown, disabled,
// with the reason, and cannot be chosen.
func TestPaymentPageUnavailableToken(t *testing.T) {
	rates, err := registry.NewStatic(map[string]string{"tBNB": "600"}, time.Now()) // no SepoliaETH price
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, storetest.SQLiteConfig(t), func(c *api.Config) { c.Rates, c.Pay.Rates = rates, rates })
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 3}`)
	u, _ := url.Parse(inv["payment_url"].(string))
	_, page := e.pageReq("GET", u.RequestURI(), nil, nil)
	contains(t, page, "SepoliaETH", "Unavailable: No rate is available for SepoliaETH")
	i := strings.Index(page, "SepoliaETH")
	label := page[strings.LastIndex(page[:i], "<label"):i]
	if !strings.Contains(label, "disabled") || !strings.Contains(label, `class="token off"`) {
		t.Fatalf("SepoliaETH is not disabled: %s", label)
	}
}
