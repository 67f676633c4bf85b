package chain_test

import (
	"context"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDevChainNewHeadsWake: the watcher polls once an hour, yet a payment on
// the dev chain becomes paid, because the dev chain's newHeads subscription
// (its WebSocket endpoint) steps it on each block; eth_subscribe is counted.
// With the WebSocket endpoint closed, polling alone finds the payment.
func TestDevChainNewHeadsWake(t *testing.T) {
	cases := []struct {
		name     string
		ws       func(d *devChain) string
		interval time.Duration
		subOK    bool
	}{
		{"subscription, no polling", func(d *devChain) string { return d.WSURL() }, time.Hour, true},
		{"endpoint closed, polling", func(*devChain) string { return closedWS(t) }, 50 * time.Millisecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f, d := onDevChain(t, cfg)
				m := metrics.New(metrics.Config{Registry: f.reg})
				srv := httptest.NewServer(m.Handler())
				t.Cleanup(srv.Close)
				f.w.Network.WSURL, f.w.Metrics = c.ws(d), m
				usdtAddr := f.tokenAddress(t, usdt)
				inv, addr := f.invoice(t, 10_000, usdt)

				ws := &chain.Watchers{}
				ws.Add(f.w, c.interval)
				ctx, cancel := context.WithCancel(f.ctx)
				var wg sync.WaitGroup
				wg.Go(func() { ws.Run(ctx, nil) })
				t.Cleanup(func() { cancel(); wg.Wait() })

				if c.subOK {
					waitSubscribed(t, srv.URL)
				}
				d.send(t, 0, usdtAddr, addr, dollars(10))
				d.Mine()
				d.Mine()
				waitPaid(t, f, inv)
				if subs := subscriptions(t, srv.URL); (subs > 0) != c.subOK {
					t.Errorf("eth_subscribe ok %v, want some: %v", subs, c.subOK)
				}
			})
		})
	}
}

// closedWS is a ws:// URL on which nothing listens.
func closedWS(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "ws://" + addr
}

// waitSubscribed waits until the metrics at url count a successful
// eth_subscribe: from then on, every new block wakes the watcher.
func waitSubscribed(t *testing.T, url string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if subscriptions(t, url) > 0 {
			return
		}
	}
	t.Fatal("the newHeads subscription never started")
}

// subscriptions is the successful eth_subscribe calls the metrics at url count.
func subscriptions(t *testing.T, url string) float64 {
	t.Helper()
	v, _ := metricstest.Scrape(t, url).Lookup("kassa_chain_rpc_requests_total",
		"network", "devchain", "method", "eth_subscribe", "outcome", "ok")
	return v
}

// waitPaid waits until inv is paid (the watcher running on its own).
func waitPaid(t *testing.T, f *fixture, inv *kassa.Invoice) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if got, _ := f.state(t, inv); got == kassa.StatusPaid {
			return
		}
	}
	got, rs := f.state(t, inv)
	t.Fatalf("invoice %s with %d payments, want paid", got, len(rs))
}

// TestHeadsResubscribes: a subscription whose connection drops is made again
// (after the backoff), and heads wake the watcher again.
func TestHeadsResubscribes(t *testing.T) {
	d := startDevChain(t, 0)
	p := newTCPProxy(t, strings.TrimPrefix(d.WSURL(), "ws://"))
	wake := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { chain.Heads{URL: "ws://" + p.addr, Network: "devchain", Wake: wake}.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })

	woken := func() {
		t.Helper()
		// Mine until a head arrives: the first blocks may come before the
		// subscription is (again) in place.
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
			if err := d.Mine(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-wake:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		t.Fatal("no head woke the watcher")
	}
	woken()
	p.cut()
	for len(wake) > 0 {
		<-wake
	}
	woken()
	if p.accepted() < 2 {
		t.Errorf("%d connections, want a second after the cut", p.accepted())
	}
}

// tcpProxy forwards connections to a target address and can cut them all.
type tcpProxy struct {
	addr  string
	mu    sync.Mutex
	conns []net.Conn
	n     int
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{addr: ln.Addr().String()}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns, p.n = append(p.conns, c, up), p.n+1
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

// cut closes every connection made so far.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// accepted is the connections the proxy took.
func (p *tcpProxy) accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}
