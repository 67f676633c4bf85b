package api_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa/store/storetest"
)

// pgProxy is a loopback TCP proxy in front of PostgreSQL that a test takes down
// and brings back, so a store outage is real without touching the machine's
// PostgreSQL.
type pgProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns []net.Conn
}

// startPGProxy listens on loopback and forwards every connection to target.
func startPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.setDown(true) })
	go p.serve()
	return p
}

func (p *pgProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		if !down {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if down {
			c.Close() // the database is gone: the connection ends before any answer
			continue
		}
		go p.pipe(c)
	}
}

func (p *pgProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, up)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// setDown cuts every open connection and refuses new ones (down), or lets them
// through again.
func (p *pgProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// TestStoreOutage: while PostgreSQL cannot be reached, API calls answer 503
// service_unavailable with Retry-After in each surface's envelope, /healthz stays
// 200 and /readyz is 503; once it is back, the same calls work.
func TestStoreOutage(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startPGProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "5")
	u.RawQuery = q.Encode()
	cfg.DatabaseURL = u.String()
	clock := storetest.NewClock(time.Now())
	cfg.Now = clock.Now
	db := storetest.Open(t, cfg)
	e := newEnvOn(t, db, clock, withCommerce(db, clock))
	s := e.newShopper()
	s.createInvoice(`{"amount_usd": 10}`)

	calls := []struct {
		name     string
		call     func() *response
		commerce bool
		ok       int
	}{
		{"list invoices", func() *response { return s.get("/api/v1/invoices") }, false, 200},
		{"create invoice", func() *response { return s.postInvoice(`{"amount_usd": 10}`, newIdemKey()) }, false, 201},
		{"commerce orders", func() *response { return s.call("GET", "/api/commerce/merchant/orders", "") }, true, 200},
	}
	proxy.setDown(true)
	for _, c := range calls {
		t.Run("down/"+c.name, func(t *testing.T) {
			r := c.call()
			expectError(t, r, 503, "api_error", "service_unavailable", "")
			if got := r.header.Get("Retry-After"); got != "5" {
				t.Errorf("Retry-After %q, want 5", got)
			}
			if success, ok := r.obj(t)["success"]; c.commerce != ok || (ok && success != false) {
				t.Errorf("envelope of %s: %s", c.name, r.body)
			}
		})
	}
	expectStatus(t, e.do(request{method: "GET", path: "/healthz"}), 200)
	ready := e.do(request{method: "GET", path: "/readyz"})
	expectStatus(t, ready, 503)
	if ready.header.Get("Retry-After") == "" {
		t.Errorf("/readyz 503 without Retry-After")
	}

	proxy.setDown(false)
	expectStatus(t, e.do(request{method: "GET", path: "/readyz"}), 200)
	for _, c := range calls {
		afterOutage(t, c.call, c.ok)
	}
}

// afterOutage checks that call answers ok once the database is back. A pooled
// connection the outage cut is found dead only when used, so a call may answer 503
// once per such connection (the pool holds at most 20) before one works; any other
// answer fails the test.
func afterOutage(t *testing.T, call func() *response, ok int) {
	t.Helper()
	for range 21 {
		r := call()
		if r.status == ok {
			return
		}
		if r.status != 503 {
			t.Fatalf("after the outage: %d %s", r.status, r.body)
		}
	}
	t.Fatalf("still 503 after the outage")
}
