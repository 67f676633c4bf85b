package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestWSTokenMint(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(true)
		signer := kassa.NewWSTokenSigner(testSecret)

		before := time.Now().Unix()
		d := e.mintToken(withKey(m.key), `{"scope":"merchant","ttl_seconds":120}`)
		tok, err := signer.Parse(d["token"].(string), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if tok.MerchantID != m.m.ID || tok.Environment != kassa.Devnet || tok.Scope != kassa.ScopeMerchant || tok.KeyID == "" {
			t.Errorf("token claims %+v", tok)
		}
		if tok.ExpiresAt < before+120 || tok.ExpiresAt > time.Now().Unix()+120 {
			t.Errorf("token expires at %d, want now+120", tok.ExpiresAt)
		}
		exp, ok := kassa.ParseTime(d["expires_at"].(string))
		if !ok || exp.Unix() != tok.ExpiresAt {
			t.Errorf("expires_at %v, token %d", d["expires_at"], tok.ExpiresAt)
		}
		want := map[string]any{"scope": "merchant", "merchant_id": float64(m.m.ID), "network_environment": "devnet",
			"ws_url": "ws://pay.test/ws/merchant/events?token=" + d["token"].(string)}
		for k, v := range want {
			if d[k] != v {
				t.Errorf("%s = %v, want %v", k, d[k], v)
			}
		}

		// Default ttl; dashboard logins mint merchant tokens without a key.
		d = e.mintToken(m.jwt(), `{"scope":"merchant"}`)
		tok, err = signer.Parse(d["token"].(string), time.Now())
		if err != nil || tok.KeyID != "" || tok.ExpiresAt < before+3600 || tok.ExpiresAt > time.Now().Unix()+3600 {
			t.Errorf("JWT token %+v, %v", tok, err)
		}
		// ttl bounds are inclusive.
		e.mintToken(withKey(m.key), `{"scope":"merchant","ttl_seconds":60}`)
		e.mintToken(withKey(m.key), `{"scope":"merchant","ttl_seconds":86400}`)
		e.mintToken(withKey(m.key), `{"scope":"merchant","ttl_seconds":null}`)

		// Commerce keys mint commerce tokens, through either header.
		commerce := m.createKey(`{"name":"shop","scope":"commerce"}`)["api_key"].(string)
		for _, h := range []string{"X-Api-Key", "X-Commerce-Api-Key"} {
			d = e.mintToken(map[string]string{h: commerce}, `{"scope":"commerce"}`)
			if d["scope"] != "commerce" || !strings.HasPrefix(d["ws_url"].(string), "ws://pay.test/ws/commerce/events?token=wst_") {
				t.Errorf("commerce token %v", d)
			}
		}
		// A mainnet key's token is for mainnet.
		mainnet := m.createKey(`{"name":"live","environment":"mainnet"}`)["api_key"].(string)
		if d = e.mintToken(withKey(mainnet), `{"scope":"merchant"}`); d["network_environment"] != "mainnet" {
			t.Errorf("network_environment %v", d["network_environment"])
		}

		post := func(headers map[string]string, body string) *response {
			return e.do(request{method: "POST", path: "/api/v1/ws/token", body: body, headers: headers})
		}
		for _, c := range []struct {
			headers     map[string]string
			body        string
			code, param string
		}{
			{withKey(m.key), `{"scope":"commerce"}`, "scope_mismatch", "scope"},
			{withKey(commerce), `{"scope":"merchant"}`, "scope_mismatch", "scope"},
			{m.jwt(), `{"scope":"commerce"}`, "scope_mismatch", "scope"},
			{withKey(m.key), `{"scope":"admin"}`, "invalid_scope", "scope"},
			{withKey(m.key), `{"scope":""}`, "invalid_scope", "scope"},
			{withKey(m.key), `{"scope":5}`, "invalid_scope", "scope"},
			{withKey(m.key), `{"scope":null}`, "invalid_scope", "scope"},
			{withKey(m.key), `{"ttl_seconds":600}`, "invalid_scope", "scope"},
			{withKey(m.key), ``, "invalid_scope", "scope"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":59}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":86401}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":600.5}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":6e2}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":"600"}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":-1}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl_seconds":99999999999999999999}`, "invalid_ttl", "ttl_seconds"},
			{withKey(m.key), `{"scope":"merchant","ttl":600}`, "unknown_parameter", "ttl"},
			{withKey(m.key), `{"scope":"merchant"`, "invalid_json", ""},
			{withKey(m.key), `{"scope":"merchant","scope":"merchant"}`, "duplicate_parameter", "scope"},
		} {
			r := post(c.headers, c.body)
			expectError(t, r, 400, "invalid_request_error", c.code, c.param)
		}
		expectError(t, post(withKey("kassa_devnet_merchant_nope"), `{"scope":"merchant"}`), 401, "authentication_error", "invalid_api_key", "")
		expectError(t, post(nil, `{"scope":"merchant"}`), 401, "authentication_error", "missing_credentials", "")
	})
}

func TestWSTokenURLFollowsPublicScheme(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t), func(c *api.Config) { c.PublicURL = "https://pay.example/kassa/" })
	m := e.newMerchant(false)
	d := e.mintToken(withKey(m.key), `{"scope":"merchant"}`)
	if want := "wss://pay.example/kassa/ws/merchant/events?token=" + d["token"].(string); d["ws_url"] != want {
		t.Errorf("ws_url %v, want %s", d["ws_url"], want)
	}
}
