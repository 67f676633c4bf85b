package api_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kassa/api"
	"kassa/registry"
	"kassa/store/storetest"
)

// pageGet fetches a payment page path without following redirects.
func (e *testEnv) pageReq(method, path string, form url.Values, headers map[string]string) (*http.Response, string) {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var rd io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = zr
	}
	b, _ := io.ReadAll(rd)
	return resp, string(b)
}

func contains(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// TestPaymentPageWithoutJavaScript walks the page with plain HTTP, as a browser
// without JavaScript would: answer, choose a token, see the address and the QR,
// watch the status change on reload.
func TestPaymentPageWithoutJavaScript(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 20, "description": "Two mugs", "invoice_title": "Mug Shop", "invoice_footer": "Thanks!",
		"payment_return_url": "https://shop.example/done",
		"questions": {"questions": [{"id": "size", "question": "Which size?", "type": "text", "validation": {"required": true}}]}}`)
	id, session, sig := inv["invoice_id"].(string), inv["session_token"].(string), inv["signature"].(string)
	u, _ := url.Parse(inv["payment_url"].(string))
	path := u.RequestURI()
	creds := url.Values{"session": {session}, "signature": {sig}}

	resp, page := e.pageReq("GET", path, nil, map[string]string{"Accept-Encoding": "gzip"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("status %d, encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "script-src 'self'") || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", resp.Header)
	}
	contains(t, page, "Mug Shop", "Two mugs", "$20.00", "Thanks!", "Which size?", `required`, "Waiting for your payment")
	if strings.Contains(page, `id="tokens"`) {
		t.Error("tokens offered before the required answer")
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") {
		t.Error("inline script or style")
	}

	// Answer: 303 back to the page, which now offers the tokens.
	form := url.Values{"q.size": {"L"}}
	for k, v := range creds {
		form[k] = v
	}
	resp, _ = e.pageReq("POST", "/pay/"+id+"/answers", form, nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/pay/"+id+"?") {
		t.Fatalf("answers: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page = e.pageReq("GET", resp.Header.Get("Location"), nil, nil)
	contains(t, page, "your answers are saved", `id="tokens"`, "USDT", "BNB Smart Chain Testnet", "/static/tokens/usdt.svg")

	// A bad choice shows on the page with 400; a good one shows the address.
	bad := url.Values{"token_id": {"999"}, "session": {session}, "signature": {sig}}
	resp, page = e.pageReq("POST", "/pay/"+id+"/token", bad, nil)
	if resp.StatusCode != 400 || !strings.Contains(page, `class="error"`) {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}
	good := url.Values{"token_id": {"1"}, "session": {session}, "signature": {sig}}
	resp, _ = e.pageReq("POST", "/pay/"+id+"/token", good, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, `id="deposit">0x`, "20 USDT", `href="ethereum:0x`, "/qr.png?")
	resp, _ = e.pageReq("POST", "/pay/"+id+"/email", url.Values{"email": {"payor@example.com"}, "session": {session}, "signature": {sig}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("email: %d", resp.StatusCode)
	}
	_, page = e.pageReq("GET", resp.Header.Get("Location"), nil, nil)
	contains(t, page, "Saved.", `value="payor@example.com"`)
	resp, png := e.pageReq("GET", "/pay/"+id+"/qr.png?"+creds.Encode(), nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(png, "\x89PNG") {
		t.Fatalf("qr: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// Half paid: reloading shows "send the rest" and a new quote; then paid, the receipt.
	pay := func(body string) {
		t.Helper()
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body,
			headers: withKey(m.key)}), 201)
	}
	pay(`{"amount_usd": 10}`)
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, "Partly paid", "10 USDT", "$10.00")
	pay(``)
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, "Paid. Thank you!", `id="receipt"`, `href="https://shop.example/done"`)
	if strings.Contains(page, `id="address"`) {
		t.Error("address still offered once paid")
	}

	// Email after payment is refused on the page (400), as the API refuses it.
	resp, page = e.pageReq("POST", "/pay/"+id+"/email", url.Values{"email": {"a@b.co"}, "session": {session}, "signature": {sig}}, nil)
	if resp.StatusCode != 400 || !strings.Contains(page, "already paid") {
		t.Errorf("email on paid invoice: %d", resp.StatusCode)
	}
}

func TestPaymentPageErrorsAndLanguage(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 5}`)
	id, session, sig := inv["invoice_id"].(string), inv["session_token"].(string), inv["signature"].(string)
	other := m.createInvoice(`{"amount_usd": 6}`)["invoice_id"].(string)
	tests := []struct {
		name, path string
		status     int
		want       string
	}{
		{"no session", "/pay/" + id, 401, "signature is wrong"},
		{"bad signature", "/pay/" + id + "?session=" + session + "&signature=" + strings.Repeat("0", 64), 401, "signature is wrong"},
		{"unknown session", "/pay/" + id + "?session=ps_nope&signature=" + sig, 401, "signature is wrong"},
		{"another invoice", "/pay/" + other + "?session=" + session + "&signature=" + sig, 404, "has ended"},
		{"spanish", "/pay/" + id + "?session=" + session + "&signature=" + sig + "&lang=es", 200, "Esperando su pago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, page := e.pageReq("GET", tt.path, nil, nil)
			if resp.StatusCode != tt.status || !strings.Contains(page, tt.want) {
				t.Fatalf("%d, want %d with %q", resp.StatusCode, tt.status, tt.want)
			}
			if tt.status != 200 && strings.Contains(page, "$5.00") {
				t.Error("error page shows invoice data")
			}
		})
	}
	resp, page := e.pageReq("GET", "/pay/"+id+"?session="+session+"&signature="+sig, nil, map[string]string{"Accept-Language": "es-MX,es;q=0.9"})
	if resp.StatusCode != 200 || !strings.Contains(page, `lang="es"`) {
		t.Error("Accept-Language es not honoured")
	}
	// Assets: cache-busted, immutable, gzipped.
	css := strings.SplitN(strings.SplitN(page, `href="/pay/assets/`, 2)[1], `"`, 2)[0]
	resp, _ = e.pageReq("GET", "/pay/assets/"+css, nil, map[string]string{"Accept-Encoding": "gzip"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("asset %s: %d %v", css, resp.StatusCode, resp.Header)
	}
	if resp, _ = e.pageReq("GET", "/pay/assets/000000000000/pay.css", nil, nil); resp.StatusCode != 404 {
		t.Errorf("stale asset hash: %d", resp.StatusCode)
	}
}

// TestPaymentPageEvents reads the page's Server-Sent Events: the status at once,
// then each change (pending, then confirmed) as it happens, until paid.
func TestPaymentPageEvents(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
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
	hash := "0x" + strings.Repeat("cd", 32)
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
}

// TestPaymentPageUnavailableToken: a token without a rate is shown, disabled,
// with the reason, and cannot be chosen.
func TestPaymentPageUnavailableToken(t *testing.T) {
	rates, err := registry.NewStatic(map[string]string{"tBNB": "600"}, time.Now()) // no SepoliaETH price
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, storetest.SQLiteConfig(t), func(c *api.Config) { c.Rates = rates })
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
