package api_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"kassa"
	"kassa/api"
	"kassa/registry"
	"kassa/store"
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

// TestPaymentPageOptionalQuestions: optional questions are asked too, marked
// optional, and can be skipped; a required one is marked and cannot be.
func TestPaymentPageOptionalQuestions(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) { testOptionalQuestions(t, cfg) })
}

func testOptionalQuestions(t *testing.T, cfg store.Config) {
	e := newEnv(t, cfg)
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 4, "questions": {"questions": [
		{"id": "note", "question": "Gift note?", "type": "text", "validation": {"required": false}}]}}`)
	id := inv["invoice_id"].(string)
	path, creds := pageLink(t, inv)
	_, page := e.pageReq("GET", path, nil, nil)
	contains(t, page, `id="questions"`, "Gift note? <span class=\"req\">(optional)</span>", `name="skip"`, "formnovalidate")
	if strings.Contains(page, `id="tokens"`) || strings.Contains(page, `id="q-note" name="q.note" type="text" value="" data-type="text" maxlength="1000" required`) {
		t.Fatal("optional questions: tokens offered before them, or the question is required")
	}
	// Skip sends no answers, even with one typed; then the tokens.
	resp, _ := e.pageReq("POST", "/pay/"+id+"/answers", with(creds, "q.note", "typed anyway", "skip", "1"), nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("skip: %d", resp.StatusCode)
	}
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, `id="tokens"`)
	if strings.Contains(page, `id="questions"`) {
		t.Fatal("questions asked again after skipping")
	}
	st := e.do(request{method: "GET", path: "/api/v1/payments/questions", headers: session(inv)}).obj(t)
	if rs, ok := st["responses"].([]any); !ok || len(rs) != 0 {
		t.Fatalf("responses after skipping: %v", st["responses"])
	}

	// Required and optional together: both shown, each marked; no skip.
	mixed := m.createInvoice(`{"amount_usd": 4, "questions": {"questions": [
		{"id": "size", "question": "Size?", "type": "text", "validation": {"required": true}},
		{"id": "note", "question": "Gift note?", "type": "text", "validation": {"required": false}}]}}`)
	mpath, _ := pageLink(t, mixed)
	_, page = e.pageReq("GET", mpath, nil, nil)
	contains(t, page, "Size? <span class=\"req\">(required)</span>", "Gift note? <span class=\"req\">(optional)</span>")
	if strings.Contains(page, `name="skip"`) {
		t.Error("required questions can be skipped")
	}
}

// TestPaymentPageInSpanish: what the server says on the Spanish page, errors and
// the reasons a token cannot be used included, is Spanish.
func TestPaymentPageInSpanish(t *testing.T) {
	rates, err := registry.NewStatic(map[string]string{"tBNB": "600"}, time.Now()) // no SepoliaETH price
	if err != nil {
		t.Fatal(err)
	}
	clock := storetest.NewClock(time.Now())
	e := newEnvClock(t, storetest.SQLiteConfig(t), clock, func(c *api.Config) { c.Rates, c.Pay.Rates = rates, rates })
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 4, "expires_in": 2592000000, "questions": {"questions": [
		{"id": "mail", "question": "Email?", "type": "email", "validation": {"required": true}}]}}`)
	id := inv["invoice_id"].(string)
	path, creds := pageLink(t, inv)
	es := with(creds, "lang", "es")
	resp, page := e.pageReq("POST", "/pay/"+id+"/token", with(es, "token_id", "1"), nil)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("token before answers: %d", resp.StatusCode)
	}
	contains(t, page, "Responda primero las preguntas obligatorias.")
	resp, page = e.pageReq("POST", "/pay/"+id+"/answers", with(es, "q.mail", "not an email"), nil)
	if resp.StatusCode != 400 {
		t.Fatalf("bad answer: %d", resp.StatusCode)
	}
	contains(t, page, "Una respuesta no tiene el formato esperado.")
	// An unreadable form (a bad escape in the body) is said in Spanish too.
	req, _ := http.NewRequest("POST", e.srv.URL+"/pay/"+id+"/answers?lang=es", strings.NewReader("q.mail=%zz"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 400 || !strings.Contains(string(b), "No se pudo leer el formulario.") {
		t.Fatalf("unreadable form: %d %s", r.StatusCode, b)
	}
	if resp, _ = e.pageReq("POST", "/pay/"+id+"/answers", with(es, "q.mail", "a@b.example"), nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("answer: %d", resp.StatusCode)
	}
	clock.Advance(time.Minute)
	_, page = e.pageReq("GET", path+"&lang=es", nil, nil)
	contains(t, page, "No disponible: No hay cotización disponible para SepoliaETH en Ethereum Sepolia.",
		">29 días 23 h</time>", `data-t-days="días"`, `&#34;invalid_email&#34;:&#34;Escriba una dirección de correo válida.&#34;`)
	resp, page = e.pageReq("POST", "/pay/"+id+"/token", with(es, "token_id", "999"), nil)
	if resp.StatusCode != 400 {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}
	contains(t, page, "Elija uno de los tokens de la lista.")
	if strings.Contains(page, "No token of this") {
		t.Error("the English message shows on the Spanish page")
	}
	// English: the time left in days, the reason in English.
	_, page = e.pageReq("GET", path+"&lang=en", nil, nil)
	contains(t, page, ">29 days 23 h</time>", "Unavailable: No rate is available for SepoliaETH on Ethereum Sepolia.")
}

// TestPaymentPageDetectedAndQR: while a payment is being confirmed nothing more is
// asked ("N/M confirmations", no amount, QR or token switch); the QR shows only
// the quote the page shows and never makes a new one.
func TestPaymentPageDetectedAndQR(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	e := newEnvClock(t, storetest.SQLiteConfig(t), clock)
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 8}`)
	id := inv["invoice_id"].(string)
	path, creds := pageLink(t, inv)
	if resp, _ := e.pageReq("POST", "/pay/"+id+"/token", with(creds, "token_id", "1"), nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	_, page := e.pageReq("GET", path, nil, nil)
	qrURL := strings.ReplaceAll(strings.SplitN(strings.SplitN(page, `id="qr" src="`, 2)[1], `"`, 2)[0], "&amp;", "&")
	if resp, _ := e.pageReq("GET", qrURL, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("qr: %d", resp.StatusCode)
	}
	if resp, _ := e.pageReq("GET", strings.Replace(qrURL, "quote=", "quote=1999", 1), nil, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("qr of another quote: %d, want 409", resp.StatusCode)
	}
	// A payment seen, not confirmed: "N/M confirmations", the address hidden.
	hash := "0x" + strings.Repeat("ef", 32)
	expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments",
		body: `{"amount_usd": 3, "status": "pending", "tx_hash": "` + hash + `"}`, headers: withKey(m.key)}), 201)
	_, page = e.pageReq("GET", path, nil, nil)
	contains(t, page, `<p id="status-text">Payment detected: 0/3 confirmations</p>`, "pending · 0/3 confirmations",
		`aria-labelledby="address-title" hidden>`)
	if strings.Contains(page, `<details class="change">`) {
		t.Error("the token switch is offered while a payment is being confirmed")
	}

	// Once the price lock ran out, the QR is 404; neither it nor the page (the
	// no-JS refresh included) writes a new quote while the payment is confirmed.
	before, err := e.db.PaymentAddress(context.Background(), id, "bsc-testnet")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(16 * time.Minute)
	if resp, _ := e.pageReq("GET", path[:strings.Index(path, "?")]+"/qr.png?"+creds.Encode(), nil, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("qr of an expired quote: %d, want 404", resp.StatusCode)
	}
	for _, p := range []string{path, path + "&watch=1"} {
		resp, page := e.pageReq("GET", p, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
		contains(t, page, `<p id="status-text">Payment detected: 0/3 confirmations</p>`)
		if strings.Contains(page, `id="address"`) || strings.Contains(page, `id="qr"`) || !strings.Contains(page, `id="tokens" hidden>`) {
			t.Errorf("detected with the lock run out: an address shown, or the token choice not hidden")
		}
	}
	after, err := e.db.PaymentAddress(context.Background(), id, "bsc-testnet")
	if err != nil {
		t.Fatal(err)
	}
	if !after.ExpiresAt.Equal(before.ExpiresAt) {
		t.Fatalf("a new quote was written while the payment is confirmed: %v, then %v", before.ExpiresAt, after.ExpiresAt)
	}
}
