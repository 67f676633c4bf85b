package api_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
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
	clock := storetest.NewClock(time.Now())
	e := newEnvClock(t, storetest.SQLiteConfig(t), clock)
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
	// Choosing a token before the required answer is refused on the page too:
	// 409, the questions again, and no lock.
	early := url.Values{"token_id": {"1"}, "session": {session}, "signature": {sig}}
	resp, page = e.pageReq("POST", "/pay/"+id+"/token", early, nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, `id="questions"`) ||
		!strings.Contains(page, "Answer the invoice&#39;s required questions") {
		t.Fatalf("token before the answers: %d\n%s", resp.StatusCode, page)
	}
	if strings.Contains(page, `id="address"`) {
		t.Fatal("an address was given before the required answer")
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
	contains(t, page, "your answers are saved", `id="tokens"`, "USDT", "BNB Smart Chain Testnet")
	// Token icons have content-hashed URLs, cached as immutable like the other assets.
	icon := "/pay/assets/" + strings.SplitN(strings.SplitN(page, `<img src="/pay/assets/`, 2)[1], `"`, 2)[0]
	if !strings.HasSuffix(icon, "/tokens/usdt.svg") {
		t.Fatalf("first icon %s", icon)
	}
	if resp, _ = e.pageReq("GET", icon, nil, nil); resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("icon %s: %d %v", icon, resp.StatusCode, resp.Header)
	}

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
	contains(t, page, `id="deposit">0x`, "20 USDT", `href="ethereum:0x`, "/qr.png?", "&amp;quote=20")
	// Copy buttons need the script, so without it they are not offered.
	if n := strings.Count(page, `class="copy" hidden`); n != 2 {
		t.Errorf("%d hidden copy buttons, want 2", n)
	}
	// The rate lock reads as text without JavaScript, not as a timestamp.
	if !regexp.MustCompile(`Price locked for <time id="quote" datetime="[^"]+" data-deadline>1[45] min</time> \(until <span id="quote-at">\d\d:\d\d</span> UTC\)`).MatchString(page) {
		t.Errorf("rate lock line: %s", page[strings.Index(page, "Price locked"):][:200])
	}
	contains(t, page, "Time left", ">12 h 0 min</time>")
	// The script counts down by the server's clock, not the browser's.
	contains(t, page, `data-now="`+kassa.FormatTime(clock.Now())+`"`)
	resp, _ = e.pageReq("POST", "/pay/"+id+"/email", url.Values{"email": {"payor@example.com"}, "session": {session}, "signature": {sig}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("email: %d", resp.StatusCode)
	}
	_, page = e.pageReq("GET", resp.Header.Get("Location"), nil, nil)
	contains(t, page, "Saved.", `value="payor@example.com"`)
	qrURL := strings.ReplaceAll(strings.SplitN(strings.SplitN(page, `id="qr" src="`, 2)[1], `"`, 2)[0], "&amp;", "&")
	resp, png := e.pageReq("GET", qrURL, nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(png, "\x89PNG") {
		t.Fatalf("qr: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// Half paid: reloading shows "send the rest" and a new quote; then paid, the receipt.
	pay := func(body string) {
		t.Helper()
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body,
			headers: withKey(m.key)}), 201)
	}
	contains(t, page, `<noscript><meta http-equiv="refresh" content="20;url=/pay/`+id+`?lang=en&amp;session=`)
	pay(`{"amount_usd": 10}`)
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, "Partly paid", "10 USDT", "$10.00")
	pay(``)
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, "Paid. Thank you!", `id="receipt"`, `href="https://shop.example/done"`)
	if strings.Contains(page, `id="address"`) {
		t.Error("address still offered once paid")
	}
	// The receipt says when, what and how; a paid invoice has no time left.
	receipt := page[strings.Index(page, `id="receipt"`):]
	contains(t, receipt, "Date", clock.Now().UTC().Format("2006-01-02 15:04 UTC"), id, "$20.00 USD", "USDT", "BNB Smart Chain Testnet")
	if strings.Contains(page, "Time left") || strings.Contains(page, `id="expires"`) {
		t.Error("a paid invoice still shows its time left")
	}
	// Without JavaScript the page reloads itself while open, marked as watched;
	// the watched page that finds it paid returns to the shop (meta refresh, not script).
	if strings.Contains(page, `http-equiv="refresh"`) {
		t.Error("a paid page opened afresh sends the payor away")
	}
	_, page = e.pageReq("GET", path+"&watch=1", nil, nil)
	contains(t, page, `<noscript><meta http-equiv="refresh" content="5;url=https://shop.example/done"></noscript>`)

	// Email after payment is refused on the page (400), as the API refuses it.
	resp, page = e.pageReq("POST", "/pay/"+id+"/email", url.Values{"email": {"a@b.co"}, "session": {session}, "signature": {sig}}, nil)
	if resp.StatusCode != 400 || !strings.Contains(page, "already paid") {
		t.Errorf("email on paid invoice: %d", resp.StatusCode)
	}
}

func TestPaymentPageErrorsAndLanguage(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	e := newEnvClock(t, storetest.SQLiteConfig(t), clock)
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 5}`)
	id, session, sig := inv["invoice_id"].(string), inv["session_token"].(string), inv["signature"].(string)
	other := m.createInvoice(`{"amount_usd": 6}`)["invoice_id"].(string)
	ended := m.createInvoice(`{"amount_usd": 5, "expires_in": 1000}`)
	signer := kassa.NewSessionSigner(testSecret)
	unknown := "ps_" + strings.Repeat("ab", 16)
	link := func(id, session, sig string) string {
		return "/pay/" + id + "?" + url.Values{"session": {session}, "signature": {sig}}.Encode()
	}
	clock.Advance(time.Second + kassa.SessionGrace + time.Minute) // the short invoice's session has ended
	tests := []struct {
		name, path string
		status     int
		want       string
	}{
		{"no session", "/pay/" + id, 401, "signature is wrong"},
		{"bad signature", link(id, session, strings.Repeat("0", 64)), 401, "signature is wrong"},
		{"another token's signature", link(id, unknown, sig), 401, "signature is wrong"},
		{"unknown session, validly signed", link(id, unknown, signer.Sign(unknown)), 404, "has ended or does not exist"},
		{"ended session", link(ended["invoice_id"].(string), ended["session_token"].(string), ended["signature"].(string)), 404, "has ended"},
		{"another invoice", link(other, session, sig), 404, "has ended"},
		{"spanish", link(id, session, sig) + "&lang=es", 200, "Esperando su pago"},
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

// pageLink returns the path of an invoice's payment page and its session form values.
func pageLink(t *testing.T, inv map[string]any) (string, url.Values) {
	t.Helper()
	u, err := url.Parse(inv["payment_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI(), url.Values{"session": {inv["session_token"].(string)}, "signature": {inv["signature"].(string)}}
}

// with returns the session values with more fields.
func with(creds url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range creds {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}
