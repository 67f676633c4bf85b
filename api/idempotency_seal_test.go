package api_test

import (
	"bytes"
	"database/sql"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// savedBody is the body column of the idempotency key key.
func savedBody(t *testing.T, raw *sql.DB, key string) []byte {
	t.Helper()
	var body []byte
	if err := raw.QueryRowContext(t.Context(), "SELECT body FROM idempotency_keys WHERE idempotency_key = $1", key).
		Scan(&body); err != nil {
		t.Fatal(err)
	}
	return body
}

func setSavedBody(t *testing.T, raw *sql.DB, key string, body []byte) {
	t.Helper()
	if _, err := raw.ExecContext(t.Context(), "UPDATE idempotency_keys SET body = $1 WHERE idempotency_key = $2",
		body, key); err != nil {
		t.Fatal(err)
	}
}

// TestIdempotentResponsesSealedAtRest: the responses saved under idempotency keys
// (an invoice create, a commerce checkout) hold no payment session token,
// signature or payment URL at rest, and a replay still returns exactly the first
// body. A row saved in clear before sealing replays as it is; one altered, or
// sealed under another server secret, is 409 idempotency_response_unreadable
// (never garbage, and never run again).
func TestIdempotentResponsesSealedAtRest(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()
		raw := storetest.RawDB(t, cfg)
		var checkoutBody string
		checkout := func(key string) *response {
			est := data(t, s.call("POST", "/api/commerce/merchant/checkout/estimate",
				`{"customer_id":"cus_1","items":[{"product_id":"B000000002","quantity":1,"retailer":"amazon"}]}`))
			addr := data(t, s.call("POST", "/api/commerce/merchant/checkout/address", `{"customer_id":"cus_1","estimateId":"`+
				est["estimateId"].(string)+`","address":{"first_name":"Ada","last_name":"Lovelace","street_address":"12 Main St",
				"city":"San Francisco","state":"CA","zip_code":"94103","country":"US","phone":"+14155550100"}}`))
			body := `{"customer_id":"cus_1","estimateId":"` + est["estimateId"].(string) + `","addressId":"` +
				addr["addressId"].(string) + `"}`
			checkoutBody = body
			first := s.call("POST", "/api/commerce/merchant/checkout/invoice", body, "Idempotency-Key", key)
			expectStatus(t, first, 200)
			return first
		}
		post := func(env *testEnv, path, body string, headers map[string]string, key string) *response {
			h := map[string]string{"Idempotency-Key": key}
			for k, v := range headers {
				h[k] = v
			}
			return env.do(request{method: "POST", path: path, body: body, headers: h})
		}
		cases := []struct {
			name    string
			create  func(key string) *response
			replay  func(env *testEnv, key string) *response
			secrets func(r *response) []string
		}{
			{"invoice create",
				func(key string) *response { return s.postInvoice(`{"amount_usd": 10}`, key) },
				func(env *testEnv, key string) *response {
					return post(env, "/api/v1/invoices", `{"amount_usd": 10}`, withKey(s.key), key)
				},
				func(r *response) []string {
					o := r.obj(t)
					return []string{o["session_token"].(string), o["signature"].(string), "session_token", "payment_url"}
				}},
			{"commerce checkout", checkout,
				func(env *testEnv, key string) *response {
					return post(env, "/api/commerce/merchant/checkout/invoice", checkoutBody,
						map[string]string{"X-Commerce-Api-Key": s.ckey}, key)
				},
				func(r *response) []string {
					d := data(t, r)
					return []string{d["session"].(string), d["signature"].(string), "invoiceUrl", "payment_session_headers"}
				}},
		}
		other := newEnvOn(t, e.db, e.clock, withCommerce(e.db, e.clock),
			func(c *api.Config) { c.Secret = []byte("another-secret-0123456789abcdef") })
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				key := newIdemKey()
				first := c.create(key)
				stored := savedBody(t, raw, key)
				for _, secret := range c.secrets(first) {
					if secret == "" || bytes.Contains(stored, []byte(secret)) {
						t.Errorf("the saved response holds %q in clear", secret)
					}
				}
				again := c.replay(e, key)
				if again.status != first.status || !bytes.Equal(again.body, first.body) ||
					again.header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("replay %d differs:\n%s\n%s", again.status, first.body, again.body)
				}
				// A create's response refers to its invoice.created event (whose
				// data is the invoice it holds): without the event it is refused.
				if id, ok := kassa.SealedRef(stored); ok != (c.name == "invoice create") {
					t.Errorf("the saved response refers to an event: %v (%q)", ok, id)
				} else if ok {
					if _, err := raw.ExecContext(t.Context(), "UPDATE events SET id = $1 WHERE id = $2", id+"x", id); err != nil {
						t.Fatal(err)
					}
					r := c.replay(e, key)
					expectError(t, r, 409, "idempotency_error", "idempotency_response_unreadable", "Idempotency-Key")
					if _, err := raw.ExecContext(t.Context(), "UPDATE events SET id = $1 WHERE id = $2", id, id+"x"); err != nil {
						t.Fatal(err)
					}
					if r = c.replay(e, key); !bytes.Equal(r.body, first.body) {
						t.Fatalf("replay with the event back: %d %s", r.status, r.body)
					}
				}
				// Sealed under another server secret (the secret changed): refused.
				r := c.replay(other, key)
				expectError(t, r, 409, "idempotency_error", "idempotency_response_unreadable", "Idempotency-Key")
				// Altered at rest: refused, not replayed as garbage.
				altered := bytes.Clone(stored)
				altered[len(altered)-1] ^= 1
				setSavedBody(t, raw, key, altered)
				r = c.replay(e, key)
				expectError(t, r, 409, "idempotency_error", "idempotency_response_unreadable", "Idempotency-Key")
				// Saved in clear before sealing: replayed as it is.
				setSavedBody(t, raw, key, first.body)
				if r = c.replay(e, key); !bytes.Equal(r.body, first.body) || r.header.Get("Idempotent-Replayed") != "true" {
					t.Errorf("clear row replay %d: %s", r.status, r.body)
				}
			})
		}
	})
}
