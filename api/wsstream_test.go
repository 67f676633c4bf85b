package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestWSStreamIsolation: a stream sees only its merchant's events in its
// environment and scope.
func TestWSStreamIsolation(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m1, m2 := e.newMerchant(true), e.newMerchant(false)
		commerceKey := m1.createKey(`{"name":"shop","scope":"commerce"}`)["api_key"].(string)
		mainnetKey := m1.createKey(`{"name":"live","environment":"mainnet"}`)["api_key"].(string)
		s1 := e.dial("/ws/merchant/events", withKey(m1.key))
		s2 := e.dial("/ws/merchant/events", withKey(m2.key))
		commerce := e.dial("/ws/commerce/events", map[string]string{"X-Commerce-Api-Key": commerceKey})
		commerceToken := e.mintToken(withKey(commerceKey), `{"scope":"commerce"}`)["token"].(string)
		commerce2 := e.dial("/ws/commerce/events?token="+url.QueryEscape(commerceToken), nil)
		mainnet := e.dial("/ws/merchant/events", withKey(mainnetKey))

		a := m1.newInvoice()
		b := m2.newInvoice()
		c := m1.newInvoice()
		invoiceEvent(t, s1.next(), "invoice.created", a)
		invoiceEvent(t, s1.next(), "invoice.created", c) // b, committed between, never came
		invoiceEvent(t, s2.next(), "invoice.created", b)

		// A mainnet invoice reaches the mainnet stream only.
		h := withKey(mainnetKey)
		h["Idempotency-Key"] = newIdemKey()
		r := e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 5}`, headers: h})
		expectStatus(t, r, 201)
		invoiceEvent(t, mainnet.next(), "invoice.created", r.obj(t)["invoice_id"].(string))
		d := m1.newInvoice()
		invoiceEvent(t, s1.next(), "invoice.created", d) // the mainnet one never came
		// Every event so far has been fanned out (d came last); none was for these.
		for _, c := range []*wsConn{commerce, commerce2, s2, mainnet} {
			c.quiet() // ends the connection: coder/websocket closes on a read timeout
		}
	})
}

func TestWSStreamRefusals(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m, other := e.newMerchant(false), e.newMerchant(false)
		commerceKey := m.createKey(`{"name":"shop","scope":"commerce"}`)["api_key"].(string)
		token := e.mintToken(withKey(m.key), `{"scope":"merchant"}`)["token"].(string)
		m.newInvoice()
		other.newInvoice()
		events := func(mc *merchant) string {
			return latestEventID(t, mc)
		}
		mine, theirs := events(m), events(other)
		signer := kassa.NewWSTokenSigner(testSecret)
		expired := signer.Mint(kassa.WSToken{MerchantID: m.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant,
			ExpiresAt: time.Now().Add(-time.Second).Unix()})
		forged := kassa.NewWSTokenSigner([]byte("another secret")).Mint(kassa.WSToken{MerchantID: m.m.ID,
			Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, ExpiresAt: time.Now().Add(time.Hour).Unix()})

		get := func(path string, headers map[string]string) *response {
			return e.do(request{method: "GET", path: path, headers: headers})
		}
		q := url.QueryEscape
		for _, c := range []struct {
			path          string
			headers       map[string]string
			status        int
			typ, code, pm string
		}{
			{"/ws/merchant/events", nil, 401, "authentication_error", "missing_credentials", ""},
			{"/ws/merchant/events?token=", nil, 401, "authentication_error", "invalid_token", ""},
			{"/ws/merchant/events?token=wst_garbage", nil, 401, "authentication_error", "invalid_token", ""},
			{"/ws/merchant/events?token=" + q(forged), nil, 401, "authentication_error", "invalid_token", ""},
			{"/ws/merchant/events?token=" + q(expired), nil, 401, "authentication_error", "token_expired", ""},
			{"/ws/merchant/events", withKey("kassa_devnet_merchant_nope"), 401, "authentication_error", "invalid_api_key", ""},
			{"/ws/merchant/events", m.jwt(), 401, "authentication_error", "invalid_credentials", ""},
			{"/ws/commerce/events?token=" + q(token), nil, 403, "permission_error", "wrong_key_scope", ""},
			{"/ws/commerce/events", withKey(m.key), 403, "permission_error", "wrong_key_scope", ""},
			{"/ws/merchant/events", map[string]string{"X-Commerce-Api-Key": commerceKey}, 403, "permission_error", "wrong_key_scope", ""},
			{"/ws/merchant/events?since=" + theirs, withKey(m.key), 400, "invalid_request_error", "invalid_since", "since"},
			{"/ws/merchant/events?since=evt_nope&token=" + q(token), nil, 400, "invalid_request_error", "invalid_since", "since"},
			{"/ws/merchant/events?since=", withKey(m.key), 400, "invalid_request_error", "invalid_since", "since"},
			{"/ws/commerce/events?since=" + mine, map[string]string{"X-Commerce-Api-Key": commerceKey}, 400, "invalid_request_error", "invalid_since", "since"},
			// Everything checks out, but this is not a WebSocket handshake.
			{"/ws/merchant/events?since=" + mine, withKey(m.key), 426, "invalid_request_error", "websocket_required", ""},
		} {
			t.Run(c.path, func(t *testing.T) {
				expectError(t, get(c.path, c.headers), c.status, c.typ, c.code, c.pm)
			})
		}
		// A real client is refused before the upgrade.
		if _, resp, err := e.tryDial("/ws/merchant/events?token="+q(expired), nil); err == nil || resp == nil || resp.StatusCode != 401 {
			t.Errorf("dial with an expired token: %v", err)
		}
	})
}

// TestWSStreamEnds: a stream ends with a close frame when its token expires or its
// key is revoked.
func TestWSStreamEnds(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		created := m.createKey(`{"name":"doomed"}`)
		key, keyID := created["api_key"].(string), created["key_id"].(string)
		byKey := e.dial("/ws/merchant/events", withKey(key))
		token := e.mintToken(withKey(key), `{"scope":"merchant"}`)["token"].(string)
		byToken := e.dial("/ws/merchant/events?token="+url.QueryEscape(token), nil)
		bystander := e.dial("/ws/merchant/events", withKey(m.key))

		// A token signed to expire in a moment.
		short := kassa.NewWSTokenSigner(testSecret).Mint(kassa.WSToken{MerchantID: m.m.ID, CredentialVersion: m.m.CredentialVersion, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, ExpiresAt: time.Now().Unix() + 2})
		expiring := e.dial("/ws/merchant/events?token="+url.QueryEscape(short), nil)
		if ce := expiring.closed(); ce.Code != 4001 || ce.Reason != "token expired" {
			t.Errorf("expiring token: close %d %q", ce.Code, ce.Reason)
		}

		id := m.newInvoice()
		invoiceEvent(t, byKey.next(), "invoice.created", id)
		invoiceEvent(t, byToken.next(), "invoice.created", id)
		r := e.do(request{method: "POST", path: "/api/v1/api-keys/" + keyID + "/revoke", headers: m.jwt()})
		expectStatus(t, r, 200)
		for name, c := range map[string]*wsConn{"key": byKey, "token": byToken} {
			if ce := c.closed(); ce.Code != 4003 || ce.Reason != "api key revoked" {
				t.Errorf("%s stream after revoke: close %d %q", name, ce.Code, ce.Reason)
			}
		}
		// The revoked key's token no longer opens a stream; other streams go on.
		expectError(t, e.do(request{method: "GET", path: "/ws/merchant/events?token=" + url.QueryEscape(token)}),
			401, "authentication_error", "api_key_revoked", "")
		invoiceEvent(t, bystander.next(), "invoice.created", id)
		id = m.newInvoice()
		invoiceEvent(t, bystander.next(), "invoice.created", id)
	})
}

// TestWSSlowConsumer: a client that cannot keep up is dropped with 1013 "slow
// consumer" while another client of the same merchant keeps receiving.
func TestWSSlowConsumer(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		release := make(chan struct{})
		stalled := make(chan struct{}, 1)
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		defer unblock()
		// The slow client's server side stalls before each write, as when the
		// client's socket buffer is full.
		e := newStreamEnv(t, cfg, 2, func(c *api.Config) {
			c.WSBeforeLiveWrite = func(r *http.Request) {
				if r.Header.Get("X-Test-Stall") != "" {
					select {
					case stalled <- struct{}{}:
					default:
					}
					<-release
				}
			}
		})
		m := e.newMerchant(false)
		slow := e.dial("/ws/merchant/events", map[string]string{"X-Api-Key": m.key, "X-Test-Stall": "1"})
		fast := e.dial("/ws/merchant/events", withKey(m.key))
		var ids []string
		for i := range 6 { // one held by the stalled writer, two buffered, then dropped
			ids = append(ids, m.newInvoice())
			invoiceEvent(t, fast.next(), "invoice.created", ids[len(ids)-1])
			if i == 0 {
				// The writer has taken the first event off the buffer before the
				// next ones arrive, so exactly two more fit.
				select {
				case <-stalled:
				case <-time.After(wsDeadline):
					t.Fatal("the slow client's writer never took the first event")
				}
			}
		}
		unblock()
		// The slow client gets what was already on its way, then the close frame.
		var got []string
		ctx, cancel := context.WithTimeout(context.Background(), wsDeadline)
		defer cancel()
		for {
			_, b, err := slow.c.Read(ctx)
			if err != nil {
				var ce websocket.CloseError
				if !errors.As(err, &ce) || ce.Code != websocket.StatusTryAgainLater || ce.Reason != "slow consumer" {
					t.Fatalf("slow client ended with %v", err)
				}
				break
			}
			var ev struct {
				Data struct {
					Object struct {
						ID string `json:"id"`
					} `json:"object"`
				} `json:"data"`
			}
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
			got = append(got, ev.Data.Object.ID)
		}
		if len(got) != 3 || strings.Join(got, ",") != strings.Join(ids[:3], ",") {
			t.Errorf("slow client got %v, want the first 3 of %v", got, ids)
		}
		// The fast client is unaffected.
		id := m.newInvoice()
		invoiceEvent(t, fast.next(), "invoice.created", id)
	})
}
