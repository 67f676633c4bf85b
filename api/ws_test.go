package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/stream"
)

// wsDeadline bounds every wait in these tests; none asserts on timing.
const wsDeadline = 30 * time.Second

// lazyStream lets a test start the hub over the store newEnv opens.
type lazyStream struct{ hub atomic.Pointer[stream.Hub] }

func (l *lazyStream) Subscribe(m int64, env kassa.Environment, scope kassa.Scope) stream.Subscription {
	return l.hub.Load().Subscribe(m, env, scope)
}

// SubscribeSink makes lazyStream a stream.PushStream, as the hub is: the streams
// take the path they take in production.
func (l *lazyStream) SubscribeSink(m int64, env kassa.Environment, scope kassa.Scope, sink stream.EventSink) func() {
	return l.hub.Load().SubscribeSink(m, env, scope, sink)
}

// SubscribeKey makes lazyStream a stream.KeyStream, as the hub is: the payment,
// refund and dashboard invoice pages take the path they take in production.
func (l *lazyStream) SubscribeKey(m int64, env kassa.Environment, scope kassa.Scope, key string) stream.Subscription {
	return l.hub.Load().SubscribeKey(m, env, scope, key)
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

// eachWaker runs f on each engine twice, named by its waker: with streams woken
// by the event hub ("hub", newStreamEnv) and with streams that poll ("poll",
// newEnv). Both runs of an engine share its store.
func eachWaker(t *testing.T, f func(t *testing.T, waker string, e *testEnv)) {
	t.Helper()
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		t.Run("hub", func(t *testing.T) { f(t, "hub", newStreamEnv(t, cfg, 0)) })
		t.Run("poll", func(t *testing.T) { f(t, "poll", newEnv(t, cfg)) })
	})
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
