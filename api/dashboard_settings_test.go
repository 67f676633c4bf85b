package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// settingsForm is a full, valid account form.
func settingsForm() url.Values {
	return url.Values{"company_name": {"Mug Co"}, "default_return_url": {"https://shop.example/thanks"},
		"underpayment_tolerance_usd": {"0.50"}, "settlement.devnet.network": {"bsc"},
		"settlement.devnet.token_symbol": {"USDT"}, "settlement.devnet.address": {wallet},
		"settlement.mainnet.network": {""}, "settlement.mainnet.token_symbol": {""}, "settlement.mainnet.address": {""},
		"current_password": {"correct horse"}}
}

// TestDashboardSettings: the account form saves through the API's update (the
// API reads what it saved), refuses what the API refuses by the field with the
// values kept, and clears; mainnet access is shown with how to ask for it.
func TestDashboardSettings(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		account := func() map[string]any {
			t.Helper()
			return e.do(request{method: "GET", path: "/api/v1/merchant", headers: m.jwt()}).obj(t)
		}
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/settings").want(t, 200, `name="company_name"`, `name="settlement.mainnet.address"`,
			`name="current_password"`, "not enabled", "kassa merchant enable-mainnet --id "+strconv.FormatInt(m.m.ID, 10),
			`href="/dashboard/settings" aria-current="page"`)

		seeOther(t, b.post("/dashboard/settings", settingsForm()), "/dashboard/settings?saved=1")
		b.get("/dashboard/settings?saved=1").want(t, 200, "Settings saved.", `value="Mug Co"`,
			`value="https://shop.example/thanks"`, `value="0.5"`, `value="`+wallet+`"`,
			// Network and token are chosen from what the registry offers in each
			// environment; the saved value stays selected though devnet has no "bsc".
			`<select id="settlement.devnet.network"`, `<option value="devchain">Kassa Dev Chain (devchain)</option>`,
			`<option value="bsc-testnet">BNB Smart Chain Testnet (bsc-testnet)</option>`,
			`<option value="bsc" selected>bsc (no longer offered)</option>`,
			`<select id="settlement.mainnet.network"`, `<option value="ethereum">Ethereum (ethereum)</option>`,
			`<option value="USDT" selected>USDT (on bsc-testnet, ethereum-sepolia, devchain)</option>`,
			`<option value="ETH">ETH (on devchain)</option>`)
		got := account()
		dev, _ := got["settlement"].(map[string]any)["devnet"].(map[string]any)
		if got["company_name"] != "Mug Co" || got["default_return_url"] != "https://shop.example/thanks" ||
			got["underpayment_tolerance_usd_millis"] != float64(500) || dev["address"] != wallet || dev["token_symbol"] != "USDT" {
			t.Fatalf("merchant after save %v", got)
		}

		// Refused fields are said in a merchant's words, by the field, never in
		// the API's JSON wording.
		for _, tc := range []struct{ field, value, msg, api string }{
			{"company_name", "", "Company name: This field must not be empty.", "company_name must"},
			{"default_return_url", "http://shop.example/", "Enter a web address that starts with https://.", "must be an absolute https URL"},
			{"underpayment_tolerance_usd", "fifty cents", "Enter a tolerance from 0 to 1,000,000 USD", "Enter the tolerance in USD"},
			{"underpayment_tolerance_usd", "2000000", "Enter a tolerance from 0 to 1,000,000 USD", "must be between 0 and"},
			{"settlement.mainnet.network", "BSC!", "Settlement target on mainnet, Network: Choose a network from the list.", "network must be a network name"},
			{"settlement.devnet.address", "0x12", "Enter an address such as 0x", "settlement.devnet.address must"},
		} {
			f := settingsForm()
			f.Set(tc.field, tc.value)
			p := b.post("/dashboard/settings", f).want(t, 400, tc.msg, `id="`+tc.field+`-note">`, `aria-invalid="true"`,
				`value="`+tc.value+`"`, `value="USDT"`)
			if strings.Contains(p.body, tc.api) {
				t.Errorf("%s=%q: the page says the API's words %q", tc.field, tc.value, tc.api)
			}
		}
		if got := account(); got["company_name"] != "Mug Co" {
			t.Fatalf("a refused form changed the merchant: %v", got)
		}

		clear := settingsForm()
		clear.Set("default_return_url", "")
		clear.Set("underpayment_tolerance_usd", "0")
		for _, k := range []string{"network", "token_symbol", "address"} {
			clear.Set("settlement.devnet."+k, "")
		}
		seeOther(t, b.post("/dashboard/settings", clear), "/dashboard/settings?saved=1")
		got = account()
		if got["default_return_url"] != nil || got["settlement"].(map[string]any)["devnet"] != nil ||
			got["underpayment_tolerance_usd_millis"] != float64(0) {
			t.Fatalf("merchant after clearing %v", got)
		}

		for _, h := range []string{"Origin: https://evil.example", "Sec-Fetch-Site: cross-site"} {
			b.post("/dashboard/settings", settingsForm(), h).want(t, 403)
			b.post("/dashboard/settings/password", url.Values{"current_password": {"correct horse"},
				"new_password": {"battery staple"}, "confirm_password": {"battery staple"}}, h).want(t, 403)
		}

		live := e.browser()
		live.signIn(e.newMerchant(true))
		live.get("/dashboard/settings").want(t, 200, "badge enabled")
	})
}

// TestDashboardPasswordChange: mistakes come back by their field (400, a wrong
// current password 403); a change
// ends every session and sends the browser to sign in again with a note.
func TestDashboardPasswordChange(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b, other := e.browser(), e.browser()
		b.signIn(m)
		other.signIn(m)
		for _, tc := range []struct {
			current, next, confirm, field, msg string
			status                             int
		}{
			{"correct horse", "battery staple", "battery stapler", "confirm_password", "The new passwords do not match.", 400},
			{"wrong horse", "battery staple", "battery staple", "current_password", "The current password is incorrect.", 403},
			{"correct horse", "short", "short", "new_password", "new_password must be 8 characters", 400},
		} {
			b.post("/dashboard/settings/password", url.Values{"current_password": {tc.current}, "new_password": {tc.next},
				"confirm_password": {tc.confirm}}).want(t, tc.status, tc.msg, `id="`+tc.field+`-note"`, `aria-invalid="true"`)
		}
		p := b.post("/dashboard/settings/password", url.Values{"current_password": {"correct horse"},
			"new_password": {"battery staple"}, "confirm_password": {"battery staple"}})
		seeOther(t, p, "/dashboard/login?changed=1")
		b.get("/dashboard/login?changed=1").want(t, 200, "Your password was changed")
		for _, br := range []*browser{b, other} {
			if p := br.get("/dashboard/settings"); p.status != http.StatusSeeOther {
				t.Fatalf("a session outlived the password change: %d", p.status)
			}
		}
		b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}}).want(t, 401)
		seeOther(t, b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"battery staple"}}), "/dashboard")
	})
}
