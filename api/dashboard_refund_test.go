package api_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// refundForm opens a refund form at path and returns its fields as the form
// would post them, with the idempotency key the page made.
func (b *browser) refundForm(path string, texts ...string) url.Values {
	b.t.Helper()
	p := b.get(path).want(b.t, 200, texts...)
	m := regexp.MustCompile(`name="idempotency_key" value="([0-9a-f-]{36})"`).FindStringSubmatch(p.body)
	if m == nil {
		b.t.Fatalf("the form has no idempotency key\n%s", p.body)
	}
	pay := regexp.MustCompile(`name="payment_id" value="([0-9a-f-]*)"`).FindStringSubmatch(p.body)
	return url.Values{"idempotency_key": {m[1]}, "payment_id": {pay[1]}, "rate": {"paid"}, "to": {"claim"}}
}

// withFields is form with the pairs name, value set.
func withFields(form url.Values, pairs ...string) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = append([]string(nil), v...)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Set(pairs[i], pairs[i+1])
	}
	return out
}

// refunds lists an invoice's refunds through the API.
func (m *merchant) refunds(t *testing.T, invoice string) []map[string]any {
	t.Helper()
	r := m.get("/api/v1/invoices/" + invoice + "/refunds")
	expectStatus(t, r, 200)
	var out []map[string]any
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var refundPagePath = regexp.MustCompile(`^/dashboard/invoices/[0-9a-f-]{36}/refunds/([0-9a-f-]{36})\?done=created$`)

// TestDashboardRefunds: over real HTTP on both engines. A set-aside payment
// offers Refund beside Accept and Dismiss; its form says what is refundable;
// more than that is refused by the amount field; a review shows the token
// amount, network and address before anything is made; creating it answers its
// page, and the same form sent again makes no second refund; the invoice then
// lists it and no longer offers Accept and Dismiss. A paid invoice's Refund
// through a claim link shows the link and its QR code; Cancel cancels it once;
// another merchant is refused.
func TestDashboardRefunds(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		pay := func(id, body string) map[string]any {
			t.Helper()
			r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body, headers: withKey(m.key)})
			expectStatus(t, r, 201)
			return r.obj(t)["payment"].(map[string]any)
		}

		// A payment in another token, set aside.
		open := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		pay(open, `{"amount_usd": 4}`)
		wrong := pay(open, `{"token_id": 3, "amount_usd": 2, "tx_hash": "0x`+strings.Repeat("cd", 32)+`"}`)
		page := "/dashboard/invoices/" + open
		formPath := page + "/refund?payment=" + wrong["id"].(string)
		b.get(page).want(t, 200, `href="`+formPath+`">Refund</a>`, ">Accept</button>", ">Dismiss</button>", "No refund yet.")
		units, _ := new(big.Int).SetString(wrong["amount_token_units"].(string), 10)
		token := kassa.FormatUnits(units, 18) + " tBNB"
		form := b.refundForm(formPath, "Refund a payment", "Still refundable: <strong>$2.00</strong> ("+token+" on ", "wrong token")

		// More than refundable: by the amount field, nothing made.
		b.post(page+"/refund", withFields(form, "step", "review", "amount_usd", "2.50")).want(t, 400,
			`aria-invalid="true"`, `<p class="error field-error" id="amount_usd-note">This is more than is still refundable`)
		b.post(page+"/refund", withFields(form, "step", "review", "to", "address", "address", "0x1234")).want(t, 400,
			`<p class="error field-error" id="address-note">Enter an address such as`)
		b.post(page+"/refund", withFields(form, "step", "review", "to", "address")).want(t, 400,
			`<p class="error field-error" id="address-note">Enter the address to send the refund to`)
		b.post(page+"/refund", withFields(form, "step", "review", "amount_token", "0.5.1")).want(t, 400,
			`id="amount_token-note">Enter a token amount above zero`)

		// The review says what will be sent; nothing is made yet.
		toAddr := withFields(form, "to", "address", "address", "0x52908400098527886e0f7030069857d2e4169ee7", "reason", "wrong coin")
		b.post(page+"/refund", withFields(toAddr, "step", "review")).want(t, 200, "Check the refund", "<strong>"+token+"</strong> ($2.00)",
			"BNB Smart Chain Testnet", "<code>0x52908400098527886E0F7030069857D2E4169EE7</code>", `value="create"`)
		if got := m.refunds(t, open); len(got) != 0 {
			t.Fatalf("a review made a refund: %v", got)
		}
		b.post(page+"/refund", withFields(toAddr, "step", "edit")).want(t, 200, `value="wrong coin"`, `value="address" checked`)

		// Create, then the same form again (a double submit): one refund.
		r := b.post(page+"/refund", withFields(toAddr, "step", "create"))
		match := refundPagePath.FindStringSubmatch(r.location)
		if r.status != http.StatusSeeOther || match == nil {
			t.Fatalf("create: %d to %q\n%s", r.status, r.location, r.body)
		}
		again := b.post(page+"/refund", withFields(toAddr, "step", "create"))
		if again.status != http.StatusSeeOther || again.location != r.location {
			t.Fatalf("second submit: %d to %q, want %q", again.status, again.location, r.location)
		}
		if got := m.refunds(t, open); len(got) != 1 || got[0]["status"] != "pending" || got[0]["payment_id"] != wrong["id"] ||
			got[0]["address"] != "0x52908400098527886E0F7030069857D2E4169EE7" || got[0]["reason"] != "wrong coin" {
			t.Fatalf("refunds after a double submit: %v", got)
		}
		b.get(r.location).want(t, 200, "The refund was created.", "To be sent", token+" on BNB Smart Chain Testnet",
			"0x52908400098527886E0F7030069857D2E4169EE7", "Not sent yet", ">Cancel refund</button>")
		after := b.get(page).want(t, 200, `<li class="refund" data-refund="`+match[1]+`">`, "$2.00 ("+token+")", "To be sent")
		if strings.Contains(after.body, `/accept"`) || strings.Contains(after.body, formPath) {
			t.Fatalf("a payment being refunded still offers Accept or Refund\n%s", after.body)
		}

		// A paid invoice, refunded through a claim link; then canceled.
		paid := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		pay(paid, `{"amount_usd": 10}`)
		page = "/dashboard/invoices/" + paid
		b.get(page).want(t, 200, `href="`+page+`/refund" data-live="refund">Refund</a>`, `<dd data-live="refunded">$0.00</dd>`)
		form = b.refundForm(page+"/refund", "Refund this invoice", "Still refundable: <strong>$10.00</strong>")
		b.post(page+"/refund", withFields(form, "step", "review", "amount_usd", "4")).want(t, 200, "Check the refund", "($4.00)",
			"A claim link, shown on the next page")
		r = b.post(page+"/refund", withFields(form, "step", "create", "amount_usd", "4"))
		match = refundPagePath.FindStringSubmatch(r.location)
		if r.status != http.StatusSeeOther || match == nil {
			t.Fatalf("create: %d to %q\n%s", r.status, r.location, r.body)
		}
		claim := b.get(r.location).want(t, 200, "Waiting for the payor", "Send the payor this claim link",
			`value="http://pay.test/refund/`+match[1]+`?t=`, `<img class="qr" src="data:image/png;base64,`)
		if !strings.Contains(claim.body, `data-copy="#claim-link"`) {
			t.Fatalf("the claim link cannot be copied\n%s", claim.body)
		}
		b.get(page).want(t, 200, "the payor, through a claim link", "Waiting for the payor")
		b.refundForm(page+"/refund", "Still refundable: <strong>$6.00</strong>")

		ob := e.browser()
		ob.signIn(e.newMerchant(false))
		cancel := page + "/refunds/" + match[1] + "/cancel"
		ob.post(cancel, nil).want(t, 404)
		ob.get(page+"/refunds/"+match[1]).want(t, 404)
		ob.get(page+"/refund").want(t, 404)
		b.post(cancel, nil, "Origin: http://evil.example").want(t, 403)
		r = b.post(cancel, nil)
		if r.status != http.StatusSeeOther || r.location != page+"/refunds/"+match[1]+"?done=canceled" {
			t.Fatalf("cancel: %d to %q\n%s", r.status, r.location, r.body)
		}
		done := b.get(r.location).want(t, 200, "The refund was canceled", "Canceled before it was sent.")
		if strings.Contains(done.body, "Cancel refund") || strings.Contains(done.body, "Send the payor this claim link") {
			t.Fatalf("a canceled refund still offers Cancel or its claim link\n%s", done.body)
		}
		b.post(cancel, nil).want(t, 409)
		b.refundForm(page+"/refund", "Still refundable: <strong>$10.00</strong>")

		// All of it: nothing left, the Refund action is gone and the form says so.
		form = b.refundForm(page + "/refund")
		r = b.post(page+"/refund", withFields(form, "step", "create", "to", "address", "address", "0x52908400098527886E0F7030069857D2E4169EE7"))
		if r.status != http.StatusSeeOther {
			t.Fatalf("refund all: %d\n%s", r.status, r.body)
		}
		b.get(page).want(t, 200, `data-live="refund" hidden>Refund</a>`)
		b.get(page+"/refund").want(t, 409, "Everything this invoice was paid is already refunded.")
	})
}
