package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestMerchantSettings(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		patch := func(body string) *response {
			t.Helper()
			return e.do(request{method: "PATCH", path: "/api/v1/merchant", body: body, headers: m.jwt()})
		}

		r := e.do(request{method: "GET", path: "/api/v1/merchant", headers: m.jwt()})
		expectStatus(t, r, 200)
		got := r.obj(t)
		if got["object"] != "merchant" || got["id"] != float64(m.m.ID) || got["email"] != m.m.Email ||
			got["mainnet_enabled"] != false || got["default_return_url"] != nil || got["underpayment_tolerance_usd_millis"] != float64(0) {
			t.Errorf("merchant %s", r.body)
		}
		st := got["settlement"].(map[string]any)
		if v, ok := st["devnet"]; !ok || v != nil {
			t.Errorf("settlement %v", st)
		}

		r = patch(`{"company_name": "Acme Ltd", "default_return_url": "https://acme.example/thanks",
			"settlement": {"devnet": {"network": "bsc", "token_symbol": "USDT", "address": "0x52908400098527886E0F7030069857D2E4169EE7"}},
			"underpayment_tolerance_usd_millis": 250, "current_password": "correct horse"}`)
		expectStatus(t, r, 200)
		got = r.obj(t)
		dev, _ := got["settlement"].(map[string]any)["devnet"].(map[string]any)
		if got["company_name"] != "Acme Ltd" || got["default_return_url"] != "https://acme.example/thanks" ||
			got["underpayment_tolerance_usd_millis"] != float64(250) || dev["network"] != "bsc" || dev["token_symbol"] != "USDT" {
			t.Errorf("patched %s", r.body)
		}
		// Invoices take the company name as default title and footer.
		inv := m.createInvoice(`{"amount_usd": 1}`)["invoice"].(map[string]any)
		if inv["invoice_title"] != "Acme Ltd" || inv["invoice_footer"] != "Acme Ltd" {
			t.Errorf("invoice defaults %v / %v", inv["invoice_title"], inv["invoice_footer"])
		}

		r = patch(`{"default_return_url": null, "settlement": {"devnet": null}, "current_password": "correct horse"}`)
		expectStatus(t, r, 200)
		got = r.obj(t)
		if got["default_return_url"] != nil || got["settlement"].(map[string]any)["devnet"] != nil || got["company_name"] != "Acme Ltd" {
			t.Errorf("cleared %s", r.body)
		}
		expectStatus(t, patch(`{}`), 200)

		// Name and email can change; the new email is the login and must stay unique.
		other := e.newMerchant(false)
		expectError(t, patch(`{"email": "`+other.m.Email+`", "current_password": "correct horse"}`), 409, "conflict_error", "email_taken", "email")
		r = patch(`{"name": "Acme", "email": "New-Owner@Acme.example", "current_password": "correct horse"}`)
		expectStatus(t, r, 200)
		if got = r.obj(t); got["name"] != "Acme" || got["email"] != "new-owner@acme.example" {
			t.Errorf("renamed %s", r.body)
		}
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/auth/login",
			body: `{"email": "new-owner@acme.example", "password": "correct horse"}`}), 200)

		for _, tc := range []struct{ name, body, code, param string }{
			{"mainnet_enabled", `{"mainnet_enabled": true}`, "read_only_parameter", "mainnet_enabled"},
			{"id", `{"id": 5}`, "read_only_parameter", "id"},
			{"bad email", `{"email": "not-an-email"}`, "invalid_email", "email"},
			{"empty name", `{"name": " "}`, "invalid_name", "name"},
			{"unknown", `{"colour": "red"}`, "unknown_parameter", "colour"},
			{"empty company", `{"company_name": ""}`, "invalid_company_name", "company_name"},
			{"null company", `{"company_name": null}`, "invalid_type", "company_name"},
			{"long company", `{"company_name": "` + strings.Repeat("c", 256) + `"}`, "company_name_too_long", "company_name"},
			{"http return url", `{"default_return_url": "http://acme.example"}`, "invalid_url", "default_return_url"},
			{"tolerance type", `{"underpayment_tolerance_usd_millis": 2.5}`, "invalid_type", "underpayment_tolerance_usd_millis"},
			{"tolerance string", `{"underpayment_tolerance_usd_millis": "5"}`, "invalid_type", "underpayment_tolerance_usd_millis"},
			{"negative tolerance", `{"underpayment_tolerance_usd_millis": -1}`, "invalid_tolerance", "underpayment_tolerance_usd_millis"},
			{"settlement env", `{"settlement": {"testnet": null}}`, "invalid_environment", "settlement.testnet"},
			{"settlement type", `{"settlement": []}`, "invalid_type", "settlement"},
			{"settlement missing", `{"settlement": {"devnet": {"network": "bsc"}}}`, "missing_param", "settlement.devnet.token_symbol"},
			{"settlement extra", `{"settlement": {"devnet": {"network": "bsc", "memo": "x"}}}`, "unknown_parameter", "settlement.devnet.memo"},
			{"settlement address", `{"settlement": {"devnet": {"network": "bsc", "token_symbol": "USDT", "address": "0x1"}}}`, "invalid_address", "settlement.devnet.address"},
			{"malformed", `{"company_name": }`, "invalid_json", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectError(t, patch(tc.body), 400, "invalid_request_error", tc.code, tc.param)
			})
		}
	})
}
