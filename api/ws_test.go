package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"kassa"
	"kassa/api"
	"kassa/store"
	"kassa/store/storetest"
	"kassa/stream"
)

// wsDeadline bounds every wait in these tests; none asserts on timing.
const wsDeadline = 30 * time.Second

// lazyStream lets a test start the hub over the store newEnv opens.
type lazyStream struct{ hub atomic.Pointer[stream.Hub] }

func (l *lazyStream) Subscribe(m int64, env kassa.Environment, scope kassa.Scope) kassa.Subscription {
	return l.hub.Load().Subscribe(m, env, scope)
}

// SubscribeSink makes lazyStream a kassa.PushStream, as the hub is: the streams
// take the path they take in production.
func (l *lazyStream) SubscribeSink(m int64, env kassa.Environment, scope kassa.Scope, sink kassa.EventSink) func() {
	return l.hub.Load().SubscribeSink(m, env, scope, sink)
}

// newStreamEnv is newEnv with a running stream hub (buffer 0: the default).
func newStreamEnv(t *testing.T, cfg store.Config, buffer int, opts ...envOption) *testEnv {
	t.Helper()
	ls := &lazyStream{}
	e := newEnv(t, cfg, append([]envOption{func(c *api.Config) {
		c.Stream = ls
		c.WSPingInterval, c.WSKeyCheckInterval = 100*time.Millisecond, 50*time.Millisecond
	}}, opts...)...)
	hub := stream.New(e.db, stream.Options{Wake: e.db.Commits(), Poll: 20 * time.Millisecond, Buffer: buffer})
	ls.hub.Store(hub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done }) // runs before the store closes
	return e
}

// mintToken mints a WebSocket token with the given credential headers.
func (e *testEnv) mintToken(headers map[string]string, body string) map[string]any {
	e.t.Helper()
	r := e.do(request{method: "POST", path: "/api/v1/ws/token", body: body, headers: headers})
	expectStatus(e.t, r, 200)
	out := r.obj(e.t)
	if out["success"] != true {
		e.t.Fatalf("success %v", out["success"])
	}
	return out["data"].(map[string]any)
}

// wsConn is a client connection to an event stream.
type wsConn struct {
	t *testing.T
	c *websocket.Conn
}

// dial opens path (with its query) on the test server.
func (e *testEnv) dial(path string, headers map[string]string) *wsConn {
	e.t.Helper()
	c, resp, err := e.tryDial(path, headers)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		e.t.Fatalf("dial %s: %v (status %d)", path, err, status)
	}
	wc := &wsConn{t: e.t, c: c}
	e.t.Cleanup(func() { c.CloseNow() })
	return wc
}

func (e *testEnv) tryDial(path string, headers map[string]string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wsDeadline)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+path, &websocket.DialOptions{HTTPHeader: h})
}

// next reads the next frame as an event object.
func (w *wsConn) next() map[string]any {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wsDeadline)
	defer cancel()
	typ, b, err := w.c.Read(ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		w.t.Fatalf("frame type %v", typ)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatalf("frame is not a JSON object: %v\n%s", err, b)
	}
	return m
}

// closed reads until the server closes the connection and returns its close frame.
func (w *wsConn) closed() websocket.CloseError {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wsDeadline)
	defer cancel()
	for {
		_, b, err := w.c.Read(ctx)
		if err == nil {
			continue // events before the close are fine here
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			w.t.Fatalf("connection ended without a close frame: %v (last %s)", err, b)
		}
		return ce
	}
}

// quiet checks that no frame arrives for a moment (a negative check, not a timing
// assertion: the events it guards against would already be on their way). The
// connection is unusable afterwards.
func (w *wsConn) quiet() {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, b, err := w.c.Read(ctx); err == nil {
		w.t.Fatalf("unexpected frame %s", b)
	}
}

// invoiceEvent checks that ev is an invoice event of the given type about id.
func invoiceEvent(t *testing.T, ev map[string]any, typ, id string) {
	t.Helper()
	obj, _ := ev["data"].(map[string]any)["object"].(map[string]any)
	if ev["type"] != typ || obj["object"] != "invoice" || obj["id"] != id {
		t.Fatalf("event %v %v about %v %v, want %s about invoice %s", ev["type"], ev["id"], obj["object"], obj["id"], typ, id)
	}
}

// latestEventID is the id of the merchant's newest event, from the events API.
func latestEventID(t *testing.T, m *merchant) string {
	t.Helper()
	r := m.get("/api/v1/events?limit=1")
	expectStatus(t, r, 200)
	list := r.obj(t)["data"].(map[string]any)["data"].([]any)
	return list[0].(map[string]any)["id"].(string)
}

// newInvoice creates an invoice through the API and returns its id.
func (m *merchant) newInvoice() string {
	m.e.t.Helper()
	return m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
}

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

func TestWSStreamDeliversEvents(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		// The ws_url works as given (on the test server's host).
		u, err := url.Parse(e.mintToken(withKey(m.key), `{"scope":"merchant"}`)["ws_url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		byToken := e.dial(u.RequestURI(), nil)
		byKey := e.dial("/ws/merchant/events", withKey(m.key))
		byJWTToken := e.dial("/ws/merchant/events?token="+url.QueryEscape(e.mintToken(m.jwt(), `{"scope":"merchant"}`)["token"].(string)), nil)

		id := m.newInvoice()
		var frames []map[string]any
		for _, c := range []*wsConn{byToken, byKey, byJWTToken} {
			ev := c.next()
			frames = append(frames, ev)
			invoiceEvent(t, ev, "invoice.created", id)
			if !kassa.ValidEventID(ev["id"].(string)) || ev["object"] != "event" || ev["api_version"] != kassa.APIVersion {
				t.Errorf("event %v", ev)
			}
			if created, ok := ev["created"].(float64); !ok || created < float64(time.Now().Add(-time.Hour).Unix()) {
				t.Errorf("created %v", ev["created"])
			}
		}
		// The frame is the event as the events API shows it.
		r := m.get("/api/v1/events/" + frames[1]["id"].(string))
		if got := r.obj(t); !reflect.DeepEqual(got, frames[1]) {
			t.Errorf("frame %v\nevents API %v", frames[1], got)
		}

		r = e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/cancel", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		var types []string
		for {
			ev := byKey.next()
			types = append(types, ev["type"].(string))
			if ev["type"] == "invoice.updated" {
				break
			}
		}
		if len(types) < 2 || types[0] != "invoice.canceled" {
			t.Errorf("cancel events %v", types)
		}
	})
}

// TestWSResume: a client that reconnects with since= gets exactly the events it
// missed, then live ones, with no duplicate.
func TestWSResume(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		token := url.QueryEscape(e.mintToken(withKey(m.key), `{"scope":"merchant"}`)["token"].(string))
		c := e.dial("/ws/merchant/events?token="+token, nil)
		id := m.newInvoice()
		invoiceEvent(t, c.next(), "invoice.created", id)
		id = m.newInvoice()
		last := c.next()
		invoiceEvent(t, last, "invoice.created", id)
		c.c.Close(websocket.StatusNormalClosure, "bye")

		var missed []string
		for range 3 {
			missed = append(missed, m.newInvoice())
		}
		c = e.dial("/ws/merchant/events?token="+token+"&since="+last["id"].(string), nil)
		live := m.newInvoice()
		for _, id := range missed {
			invoiceEvent(t, c.next(), "invoice.created", id)
		}
		invoiceEvent(t, c.next(), "invoice.created", live)
		// Nothing was sent twice: the next frame is the next new event.
		next := m.newInvoice()
		invoiceEvent(t, c.next(), "invoice.created", next)

		// since works with an API key too, and from an event with nothing after it.
		k := e.dial("/ws/merchant/events?since="+last["id"].(string), withKey(m.key))
		for _, id := range append(missed, live, next) {
			invoiceEvent(t, k.next(), "invoice.created", id)
		}
		newest := latestEventID(t, m)
		k = e.dial("/ws/merchant/events?since="+newest, withKey(m.key))
		id = m.newInvoice()
		invoiceEvent(t, k.next(), "invoice.created", id)
	})
}

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
		short := kassa.NewWSTokenSigner(testSecret).Mint(kassa.WSToken{MerchantID: m.m.ID, Environment: kassa.Devnet,
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
