package api_test

import (
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
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
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

// refunds lists an invoice's refunds through the API (in env, devnet by default).
func (m *merchant) refunds(t *testing.T, invoice string, env ...string) []map[string]any {
	t.Helper()
	h := m.jwt()
	if len(env) > 0 {
		h["X-Environment"] = env[0]
	}
	r := m.e.do(request{method: "GET", path: "/api/v1/invoices/" + invoice + "/refunds", headers: h})
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

// TestDashboardRefundMainnetProof: on mainnet a refund to an address needs the
// current password and, with two-step sign-in on, a code at its confirmation
// step (none, or a wrong one, is refused by its field and makes nothing); the
// same form sent again after it was made answers the refund without asking
// again (its code is used); a claim link needs no proof. The dashboard may name
// the address where an API key may not.
func TestDashboardRefundMainnetProof(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := twoStepClock()
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(true)
		h := m.jwt()
		h["X-Environment"], h["Idempotency-Key"] = "mainnet", newIdemKey()
		r := e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 10}`, headers: h})
		expectStatus(t, r, 201)
		live := r.obj(t)["invoice_id"].(string)
		var tok kassa.Token
		for _, t := range registry.Default().Tokens(kassa.Mainnet) {
			if t.Stable && tok.ID == 0 {
				tok = t
			}
		}
		units := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(tok.Decimals+1)), nil) // 10 tokens
		if _, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: live,
			Network: tok.Network, TxHash: "0x" + strings.Repeat("ab", 32), TokenID: tok.ID,
			FromAddress: "0xde709f2102306220921060314715629080e2fb77", AmountUnits: units, AmountUSD: 10000,
			Confirmations: 20, Confirmed: true, BlockNumber: 100, BlockHash: "0x" + strings.Repeat("01", 32)}); err != nil {
			t.Fatal(err)
		}
		e.turnOnTwoStep(t, m)
		m.token = e.loginToken(t, m, "correct horse", twoStepSecret, clock)
		clock.Advance(30 * time.Second)
		b := e.browser()
		b.passwordStep(t, m, "/dashboard")
		seeOther(t, b.post("/dashboard/login/code", url.Values{"code": {code(t, twoStepSecret, clock.Now())}}), "/dashboard")
		clock.Advance(30 * time.Second)
		page := "/dashboard/invoices/" + live
		form := b.refundForm(page+"/refund", "Still refundable: <strong>$10.00</strong>")
		toAddr := withFields(form, "to", "address", "address", "0x52908400098527886E0F7030069857D2E4169EE7", "amount_usd", "3")
		b.post(page+"/refund", withFields(toAddr, "step", "review")).want(t, 200, "Check the refund", "Confirm it is you",
			`name="current_password" type="password"`, `name="code" type="text"`)
		b.post(page+"/refund", withFields(toAddr, "step", "create")).want(t, 403,
			`<p class="error field-error" id="current_password-note">Enter your current password: a refund to an address on mainnet sends real money.`)
		b.post(page+"/refund", withFields(toAddr, "step", "create", "current_password", "wrong horse")).want(t, 403,
			`id="current_password-note">That is not your current password.`)
		if got := m.refunds(t, live, "mainnet"); len(got) != 0 {
			t.Fatalf("a refused proof made a refund: %v", got)
		}
		b.post(page+"/refund", withFields(toAddr, "step", "create", "current_password", "correct horse")).want(t, 403,
			`id="code-note">Enter the code from your authenticator app.`)
		proof := withFields(toAddr, "step", "create", "current_password", "correct horse", "code", code(t, twoStepSecret, clock.Now()))
		r2 := b.post(page+"/refund", proof)
		if r2.status != http.StatusSeeOther || refundPagePath.FindStringSubmatch(r2.location) == nil {
			t.Fatalf("create with the password: %d to %q\n%s", r2.status, r2.location, r2.body)
		}
		if again := b.post(page+"/refund", proof); again.status != http.StatusSeeOther || again.location != r2.location {
			t.Fatalf("the same form again: %d to %q, want %q\n%s", again.status, again.location, r2.location, again.body)
		}

		clock.Advance(time.Second) // newest first: a later refund
		form = b.refundForm(page+"/refund", "Still refundable: <strong>$7.00</strong>")
		review := b.post(page+"/refund", withFields(form, "step", "review")).want(t, 200, "A claim link, shown on the next page")
		if strings.Contains(review.body, "current_password") {
			t.Fatalf("a claim link asks for the password\n%s", review.body)
		}
		r2 = b.post(page+"/refund", withFields(form, "step", "create"))
		if r2.status != http.StatusSeeOther {
			t.Fatalf("claim link: %d\n%s", r2.status, r2.body)
		}
		if got := m.refunds(t, live, "mainnet"); len(got) != 2 || got[0]["address"] != nil || got[1]["address"] != "0x52908400098527886E0F7030069857D2E4169EE7" {
			t.Fatalf("mainnet refunds %v", got)
		}
	})
}
