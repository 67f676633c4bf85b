package webhook

import (
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// Targets of the tests: the default (public addresses only) and the operator's
// --webhook-allow-private, which the tests' loopback servers need.
var (
	publicOnly   = delivery.Targets{}
	allowPrivate = delivery.Targets{AllowPrivate: true}
)

// testClient is a guarded client for targets in env with short timeouts that
// trusts srv's certificate when srv is a TLS server, and resolves names with
// resolver (nil: the system's).
func testClient(t *testing.T, targets delivery.Targets, env kassa.Environment, srv *httptest.Server, resolver *net.Resolver) *http.Client {
	t.Helper()
	o := clientOptions{dialTimeout: 2 * time.Second, timeout: 5 * time.Second, resolver: resolver}
	if srv != nil && srv.Certificate() != nil {
		o.rootCAs = x509.NewCertPool()
		o.rootCAs.AddCert(srv.Certificate())
	}
	c := newClient(targets, env, o)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// countingServer answers 200 "ok" and counts the requests it gets.
func countingServer(t *testing.T, tls bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("ok"))
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate case
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestDialGuard: the guard refuses every non-public class without the flag; with
// it a devnet guard still refuses all but loopback, private and carrier-grade NAT,
// and a mainnet guard refuses them all as without it.
func TestDialGuard(t *testing.T) {
	tests := []struct {
		addr    string
		refused string // "" when allowed by default, else the class in the error
		allowed bool   // allowed with --webhook-allow-private
	}{
		{"93.184.216.34:443", "", true},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", "", true},
		{"127.0.0.1:80", "loopback", true},
		{"127.9.9.9:80", "loopback", true},
		{"[::1]:80", "loopback", true},
		{"[::ffff:127.0.0.1]:80", "loopback", true},
		{"10.0.0.1:443", "private", true},
		{"172.16.5.4:443", "private", true},
		{"192.168.1.1:443", "private", true},
		{"[::ffff:192.168.1.1]:443", "private", true},
		{"[fd00::1]:443", "private", true},
		{"100.64.0.1:443", "carrier-grade NAT", true},
		{"169.254.169.254:80", "link-local", false},
		{"[::ffff:169.254.169.254]:80", "link-local", false},
		{"[fe80::1%eth0]:80", "link-local", false},
		{"0.0.0.0:80", "unspecified", false},
		{"[::]:80", "unspecified", false},
		{"224.0.0.1:443", "link-local", false},
		{"239.1.2.3:443", "multicast", false},
		{"[ff0e::1]:443", "multicast", false},
		{"0.1.2.3:443", "reserved", false},
		{"255.255.255.255:443", "reserved", false},
		{"240.0.0.1:443", "reserved", false},
	}
	for _, tt := range tests {
		network := "tcp4"
		if strings.HasPrefix(tt.addr, "[") && !strings.Contains(tt.addr, "ffff") {
			network = "tcp6"
		}
		for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
			t.Run("default/"+string(env)+"/"+tt.addr, func(t *testing.T) {
				checkRefusal(t, (&guard{targets: publicOnly, env: env}).control(network, tt.addr, nil), tt.refused)
			})
			t.Run("allow-private/"+string(env)+"/"+tt.addr, func(t *testing.T) {
				want := tt.refused
				if tt.allowed && env == kassa.Devnet {
					want = ""
				}
				checkRefusal(t, (&guard{targets: allowPrivate, env: env}).control(network, tt.addr, nil), want)
			})
		}
	}
	t.Run("not tcp", func(t *testing.T) {
		if err := (&guard{targets: allowPrivate, env: kassa.Devnet}).control("udp4", "127.0.0.1:53", nil); err == nil {
			t.Fatal("udp dial allowed")
		}
	})
}

// checkRefusal checks that err refuses with class want, or is nil when want is "".
func checkRefusal(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case want != "" && err == nil:
		t.Fatalf("allowed, want refused (%s)", want)
	case want != "" && !strings.Contains(err.Error(), "is not allowed ("+want+")"):
		t.Fatalf("error %q, want class %q", err, want)
	}
}

// TestClientSSRF dials for real: allowed loopback requests reach the server,
// refused ones fail in the dial guard before any packet is sent. The flag lets
// devnet clients through, never mainnet ones.
func TestClientSSRF(t *testing.T) {
	srv, hits := countingServer(t, false)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	const devnet, mainnet = kassa.Devnet, kassa.Mainnet
	tests := []struct {
		name    string
		targets delivery.Targets
		env     kassa.Environment
		url     string
		want    string // error substring; "" when the request must succeed
	}{
		{"loopback allowed", allowPrivate, devnet, srv.URL, ""},
		{"localhost allowed", allowPrivate, devnet, "http://localhost" + port, ""},
		{"loopback", publicOnly, devnet, srv.URL, "address is not allowed (loopback)"},
		{"localhost", publicOnly, devnet, "http://localhost" + port, "is not allowed (loopback)"},
		{"private", publicOnly, devnet, "http://10.255.255.1:9/", "address is not allowed (private)"},
		{"https private", publicOnly, devnet, "https://192.168.0.1/", "is not allowed (private)"},
		{"metadata", publicOnly, devnet, "http://169.254.169.254/latest", "is not allowed (link-local)"},
		{"metadata allowed private", allowPrivate, devnet, "http://169.254.169.254/latest", "is not allowed (link-local)"},
		{"mainnet loopback allowed private", allowPrivate, mainnet, srv.URL, "address is not allowed (loopback)"},
		{"mainnet localhost allowed private", allowPrivate, mainnet, "http://localhost" + port, "is not allowed (loopback)"},
		{"mainnet https loopback allowed private", allowPrivate, mainnet, "https://127.0.0.1" + port, "is not allowed (loopback)"},
		{"mainnet private allowed private", allowPrivate, mainnet, "https://10.0.0.5/", "address is not allowed (private)"},
		{"mainnet CGNAT allowed private", allowPrivate, mainnet, "https://100.64.0.1/", "is not allowed (carrier-grade NAT)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits.Load()
			resp, err := testClient(t, tt.targets, tt.env, nil, nil).Post(tt.url, "application/json", strings.NewReader("{}"))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("request failed: %v", err)
				}
				resp.Body.Close()
				if hits.Load() != before+1 {
					t.Fatal("request did not reach the server")
				}
				return
			}
			if err == nil {
				resp.Body.Close()
				t.Fatalf("request allowed, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want %q", err, tt.want)
			}
			if hits.Load() != before {
				t.Fatal("a refused request reached the server")
			}
		})
	}
}

func TestClientTLS(t *testing.T) {
	srv, hits := countingServer(t, true)
	resp, err := testClient(t, allowPrivate, kassa.Devnet, srv, nil).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("TLS request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || hits.Load() != 1 || resp.TLS == nil {
		t.Fatalf("status %d, hits %d, TLS %v", resp.StatusCode, hits.Load(), resp.TLS != nil)
	}
	// Without the test certificate the handshake fails.
	if _, err := testClient(t, allowPrivate, kassa.Devnet, nil, nil).Post(srv.URL, "application/json", nil); err == nil {
		t.Fatal("untrusted certificate accepted")
	}
}

func TestClientNoRedirectNoProxy(t *testing.T) {
	target, hits := countingServer(t, false)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	resp, err := testClient(t, allowPrivate, kassa.Devnet, nil, nil).Post(redirect.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || hits.Load() != 0 {
		t.Fatalf("status %d, target hits %d: redirect followed", resp.StatusCode, hits.Load())
	}
	c := (&Worker{}).client(kassa.Mainnet)
	if tr := c.Transport.(*http.Transport); tr.Proxy != nil {
		t.Fatal("the worker's client uses a proxy")
	}
	if c.Timeout != kassa.WebhookTimeout {
		t.Fatalf("timeout %v, want %v", c.Timeout, kassa.WebhookTimeout)
	}
}
