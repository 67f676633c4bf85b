package api_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestPaymentPageSetAsideWords: the payment page says per payment what became
// of it, by its resolution, else why it was set aside: counted, accepted by the
// shop, kept by the shop without counting (contact the shop), refunded to the
// payor, and, while the shop has not resolved it, late, in another token, or
// after the invoice closed. In English and Spanish, on the server's page; the
// payor API's payment-status carries attention_reason and resolution for the
// script to say the same. Both engines.
func TestPaymentPageSetAsideWords(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnvClock(t, cfg, storetest.NewClock(time.Now()))
		m := e.newMerchant(false)
		n := 0
		pay := func(id, body string) string {
			t.Helper()
			n++
			hash := `"tx_hash": "0x` + strings.Repeat(string(rune('a'+n%6)), 2) + strings.Repeat("0", 60) + string(rune('a'+n/6)) + `1", `
			r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: "{" + hash + body + "}", headers: withKey(m.key)})
			expectStatus(t, r, 201)
			return r.obj(t)["payment"].(map[string]any)["id"].(string)
		}
		resolve := func(id, pid, how string) {
			t.Helper()
			expectStatus(t, e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/payments/" + pid + "/" + how, headers: withKey(m.key)}), 200)
		}

		// Invoice A: USDT locked and counted; tBNB three times: unresolved, dismissed, refunded.
		a := m.createInvoice(`{"amount_usd": 10}`)
		aID := a["invoice_id"].(string)
		pay(aID, `"amount_usd": 4`)
		pay(aID, `"token_id": 3, "amount_usd": 1`)
		resolve(aID, pay(aID, `"token_id": 3, "amount_usd": 2`), "dismiss")
		refunded := pay(aID, `"token_id": 3, "amount_usd": 3`)
		h := withKey(m.key)
		h["Idempotency-Key"] = newIdemKey()
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/invoices/" + aID + "/refunds",
			body: `{"payment_id": "` + refunded + `", "address": "` + payorAddress + `"}`, headers: h}), 201)
		if n, err := e.db.SimulateRefunds(context.Background(), kassa.Devnet, func(string) bool { return false },
			func(string) string { return "0x" + strings.Repeat("ef", 32) }); err != nil || n != 1 {
			t.Fatalf("simulate the refund: %d %v", n, err)
		}

		// Invoice B: expired; a late payment left, a late one accepted (paid), then one on the paid invoice.
		b := m.createInvoice(`{"amount_usd": 10, "expires_in": 1000}`)
		bID := b["invoice_id"].(string)
		e.clock.Advance(2 * time.Second)
		pay(bID, `"amount_usd": 3`)
		resolve(bID, pay(bID, `"amount_usd": 10`), "accept")
		pay(bID, `"amount_usd": 1`)

		tests := []struct {
			name   string
			inv    map[string]any
			lang   string
			wants  []string
			states map[string]int // payment-status: "reason/resolution" pairs and how many
		}{
			{"A en", a, "en", []string{"> confirmed", "sent in a token or on a network other than the one chosen: the shop will review it",
				"the shop kept this payment without counting it toward this invoice; contact the shop", "refunded to you"},
				map[string]int{"/": 1, "wrong_token/": 1, "wrong_token/dismissed": 1, "wrong_token/refunded": 1}},
			{"A es", a, "es", []string{"> confirmado", "enviado con un token o en una red distintos", "la tienda se quedó este pago sin contarlo",
				"reembolsado a usted"}, nil},
			{"B en", b, "en", []string{"arrived after this invoice expired: the shop will review it", "accepted by the shop: it counts toward this invoice",
				"arrived after this invoice was closed: the shop will review it"},
				map[string]int{"late/": 1, "late/accepted": 1, "final_invoice/": 1}},
			{"B es", b, "es", []string{"llegó después de que venciera", "aceptado por la tienda", "llegó después de que se cerrara"}, nil},
		}
		for _, tt := range tests {
			u, _ := url.Parse(tt.inv["payment_url"].(string))
			resp, page := e.pageReq("GET", u.RequestURI()+"&lang="+tt.lang, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %d", tt.name, resp.StatusCode)
			}
			list := page[strings.Index(page, `id="payments"`):]
			list = list[:strings.Index(list, "</ul>")]
			contains(t, list, tt.wants...)
			lacks(t, list, "under review by the shop", "en revisión por la tienda")
			if tt.states == nil {
				continue
			}
			r := e.do(request{method: "GET", path: "/api/v1/payments/payment-status", headers: map[string]string{
				"X-Session-Token": tt.inv["session_token"].(string), "X-Signature": tt.inv["signature"].(string)}})
			expectStatus(t, r, 200)
			var st struct {
				Payments []struct {
					Reason     *string `json:"attention_reason"`
					Resolution *string `json:"resolution"`
				} `json:"payments"`
			}
			if err := json.Unmarshal(r.body, &st); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, p := range st.Payments {
				k := ""
				if p.Reason != nil {
					k = *p.Reason
				}
				k += "/"
				if p.Resolution != nil {
					k += *p.Resolution
				}
				got[k]++
			}
			for k, want := range tt.states {
				if got[k] != want {
					t.Errorf("%s: payment-status has %d %q, want %d (%s)", tt.name, got[k], k, want, r.body)
				}
			}
		}
	})
}
