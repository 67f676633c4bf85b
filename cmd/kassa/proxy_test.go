package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// healthInterval is how often the test proxy checks each backend's /readyz.
const healthInterval = 100 * time.Millisecond

// testProxy is a loopback reverse proxy in front of kassa instances, as an
// operator's nginx or Caddy: round robin over the backends whose /readyz answered
// 200 at the last check (every healthInterval), WebSocket upgrades passed through
// (httputil.ReverseProxy), and a request whose dial fails sent to the next backend
// (nginx's proxy_next_upstream error). Requests are buffered so they can be sent
// again; net/http's Transport also resends, on a new connection, a replayable
// request (GET, or one with an Idempotency-Key) whose reused connection the
// backend had closed.
type testProxy struct {
	url       string
	transport *http.Transport
	next      atomic.Uint64
	redialed  atomic.Int64 // requests sent to another backend after a dial failed

	mu       sync.Mutex
	backends []*backend
	errs     []string // what the proxy answered 502 for
}

// backend is one instance behind the proxy and its health.
type backend struct {
	host    string // host:port
	healthy atomic.Bool
	stop    context.CancelFunc // ends its health checks
}

// newTestProxy starts a proxy over the instances at urls and waits until each
// has passed a health check.
func newTestProxy(t *testing.T, urls ...string) *testProxy {
	t.Helper()
	p := &testProxy{transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = "http", "backend", ""
			pr.SetXForwarded()
		},
		Transport: p,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.mu.Lock()
			p.errs = append(p.errs, r.Method+" "+r.URL.String()+": "+err.Error())
			p.mu.Unlock()
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		p.mu.Lock()
		for _, b := range p.backends {
			b.stop()
		}
		p.mu.Unlock()
		p.transport.CloseIdleConnections()
	})
	p.url = srv.URL
	for _, u := range urls {
		p.backends = append(p.backends, p.watch(u))
	}
	for _, u := range urls {
		p.waitHealth(t, u, true)
	}
	return p
}

// watch returns the backend at url, checking its /readyz every healthInterval.
func (p *testProxy) watch(url string) *backend {
	ctx, cancel := context.WithCancel(context.Background())
	b := &backend{host: strings.TrimPrefix(url, "http://"), stop: cancel}
	client := &http.Client{Timeout: time.Second}
	go func() {
		tick := time.NewTicker(healthInterval)
		defer tick.Stop()
		for {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+b.host+"/readyz", nil)
			resp, err := client.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.healthy.Store(err == nil && resp.StatusCode == http.StatusOK)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return b
}

// replace puts the instance at newURL in place of the one at oldURL (a restart on
// another port) and waits until it is healthy.
func (p *testProxy) replace(t *testing.T, oldURL, newURL string) {
	t.Helper()
	old := strings.TrimPrefix(oldURL, "http://")
	p.mu.Lock()
	for i, b := range p.backends {
		if b.host == old {
			b.stop()
			p.backends[i] = p.watch(newURL)
		}
	}
	p.mu.Unlock()
	p.waitHealth(t, newURL, true)
}

// waitHealth waits until the proxy holds the backend at url for healthy (or not).
func (p *testProxy) waitHealth(t *testing.T, url string, healthy bool) {
	t.Helper()
	host := strings.TrimPrefix(url, "http://")
	deadline := time.Now().Add(time.Minute)
	for {
		p.mu.Lock()
		found, ok := false, false
		for _, b := range p.backends {
			if b.host == host {
				found, ok = true, b.healthy.Load() == healthy
			}
		}
		p.mu.Unlock()
		if !found {
			t.Fatalf("%s is not behind the proxy", url)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not see %s as healthy=%v within a minute", url, healthy)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// order is the backends to try for one request: the healthy ones, starting at the
// next in round robin; all of them when none is healthy.
func (p *testProxy) order() []*backend {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.backends)
	start := int(p.next.Add(1) % uint64(n))
	var healthy, all []*backend
	for i := range n {
		b := p.backends[(start+i)%n]
		all = append(all, b)
		if b.healthy.Load() {
			healthy = append(healthy, b)
		}
	}
	if len(healthy) == 0 {
		return all
	}
	return healthy
}

// RoundTrip sends req to a backend, and to the next one when the dial fails
// (nothing was sent, so any request may go again).
func (p *testProxy) RoundTrip(req *http.Request) (*http.Response, error) {
	var last error
	for _, b := range p.order() {
		out := req.Clone(req.Context())
		out.URL.Host, out.Host = b.host, ""
		if req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			out.Body = body
		}
		resp, err := p.transport.RoundTrip(out)
		var op *net.OpError
		if err == nil || req.Context().Err() != nil || !errors.As(err, &op) || op.Op != "dial" {
			return resp, err
		}
		b.healthy.Store(false) // until its next check
		p.redialed.Add(1)
		last = err
	}
	return nil, last
}

// failures returns what the proxy answered 502 for.
func (p *testProxy) failures() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}
