package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestHandshakeErrorsAreJSON: a WebSocket handshake that websocket.Accept would
// refuse in plain text (a version other than 13, a missing or malformed key) is
// refused before the upgrade with the API's JSON error; a version is 426 with
// Sec-WebSocket-Version: 13 (RFC 6455 4.4).
func TestHandshakeErrorsAreJSON(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		const goodKey = "dGhlIHNhbXBsZSBub25jZQ=="
		for _, c := range []struct {
			name, version, key string
			status             int
			code               string
		}{
			{"version 8", "8", goodKey, 426, "unsupported_websocket_version"},
			{"no version", "", goodKey, 426, "unsupported_websocket_version"},
			{"no key", "13", "", 400, "invalid_websocket_key"},
			{"short key", "13", "c2hvcnQ=", 400, "invalid_websocket_key"},
			{"key not base64", "13", "not base64!", 400, "invalid_websocket_key"},
		} {
			t.Run(c.name, func(t *testing.T) {
				h := withKey(m.key)
				h["Connection"], h["Upgrade"] = "Upgrade", "websocket"
				h["Sec-WebSocket-Version"], h["Sec-WebSocket-Key"] = c.version, c.key
				r := e.do(request{method: "GET", path: "/ws/merchant/events", headers: h})
				expectError(t, r, c.status, "invalid_request_error", c.code, "")
				wantJSON(t, r)
				if c.status == 426 && r.header.Get("Sec-WebSocket-Version") != "13" {
					t.Errorf("Sec-WebSocket-Version %q, want 13", r.header.Get("Sec-WebSocket-Version"))
				}
			})
		}
	})
}

// TestUnknownAssetsAreJSON: the static asset routes answer an unknown file or a
// stale hash with the API's JSON 404, like any unknown URL.
func TestUnknownAssetsAreJSON(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		for _, path := range []string{
			"/pay/assets/000000000000/pay.css",
			"/pay/assets/000000000000/nope.css",
			"/static/tokens/nope.svg",
			"/dashboard/assets/000000000000/dashboard.css",
			"/dashboard/assets/000000000000/nope.js",
		} {
			t.Run(path, func(t *testing.T) {
				r := e.do(request{method: "GET", path: path})
				expectError(t, r, 404, "not_found_error", "route_not_found", "")
				wantJSON(t, r)
			})
		}
	})
}

// wantJSON fails the test unless r's body is declared JSON.
func wantJSON(t *testing.T, r *response) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
}
