package api_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

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
