package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestVerify(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		created := m.createInvoice(`{"amount_usd": 5}`)
		id, ps := created["invoice_id"].(string), session(created)
		path := "/api/v1/invoice/" + id + "/verify"
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", headers: withKey(m.key)}), 201)

		for name, h := range map[string]map[string]string{"merchant key": withKey(m.key), "session": ps} {
			r := e.do(request{method: "GET", path: path, headers: h})
			expectStatus(t, r, 200)
			if st := r.obj(t)["payment_status"].(map[string]any); st["status"] != "paid" {
				t.Errorf("%s: %s", name, r.body)
			}
		}
		hash := "0x" + strings.Repeat("cd", 32)
		r := e.do(request{method: "POST", path: path, body: `{"tx_hash": "` + hash + `", "network": "bsc-testnet"}`, headers: ps})
		expectStatus(t, r, 200)
		if got := r.obj(t); got["checked"] != false || got["invoice_id"] != id {
			t.Errorf("verify %s", r.body)
		}
		expectError(t, e.do(request{method: "POST", path: path, body: `{"tx_hash": "0x1", "network": "bsc-testnet"}`, headers: ps}),
			400, "invalid_request_error", "invalid_tx_hash", "tx_hash")
		expectError(t, e.do(request{method: "POST", path: path, body: `{"tx_hash": "` + hash + `", "network": "bsc"}`, headers: ps}),
			400, "invalid_request_error", "invalid_network", "network")
		// A session opens its own invoice only; no credential is 401.
		other := m.createInvoice(`{"amount_usd": 5}`)["invoice_id"].(string)
		expectError(t, e.do(request{method: "GET", path: "/api/v1/invoice/" + other + "/verify", headers: ps}), 404, "not_found_error", "resource_missing", "")
		expectError(t, e.do(request{method: "GET", path: path}), 401, "authentication_error", "missing_credentials", "")
	})
}
