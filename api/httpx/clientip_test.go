package httpx

import (
	"net/http/httptest"
	"testing"
	"time"
)

// TestProxiesClientIP: behind a trusted proxy the client is the address the
// proxy saw, read from the right of X-Forwarded-For past the trusted hops; what
// the client itself wrote further left, and any header from an untrusted peer,
// is never read.
func TestProxiesClientIP(t *testing.T) {
	internal, err := ParseProxies("10.0.0.0/8, 192.0.2.9")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		proxies Proxies
		peer    string
		xff     []string
		want    string
	}{
		{"no proxy, no header", DefaultProxies, "198.51.100.7:4000", nil, "198.51.100.7"},
		{"an untrusted peer's header is ignored", DefaultProxies, "198.51.100.7:4000", []string{"203.0.113.1"}, "198.51.100.7"},
		{"a local proxy names the client", DefaultProxies, "127.0.0.1:4000", []string{"203.0.113.1"}, "203.0.113.1"},
		{"the client's own claim further left is not read", DefaultProxies, "127.0.0.1:4000", []string{"6.6.6.6, 203.0.113.1"}, "203.0.113.1"},
		{"several header lines are one list", DefaultProxies, "[::1]:4000", []string{"6.6.6.6", "2001:db8::5"}, "2001:db8::5"},
		{"a local client without a header is itself", DefaultProxies, "127.0.0.1:4000", nil, "127.0.0.1"},
		{"trusted hops are skipped", internal, "10.0.0.2:4000", []string{"6.6.6.6, 203.0.113.1, 192.0.2.9, 10.1.1.1"}, "203.0.113.1"},
		{"only trusted hops: the leftmost", internal, "10.0.0.2:4000", []string{"10.9.9.9, 10.1.1.1"}, "10.9.9.9"},
		{"garbage leaves the peer", DefaultProxies, "127.0.0.1:4000", []string{"not-an-ip"}, "127.0.0.1"},
		{"no proxies trusted", Proxies{}, "127.0.0.1:4000", []string{"203.0.113.1"}, "127.0.0.1"},
		{"a mapped address is IPv4", DefaultProxies, "127.0.0.1:4000", []string{"::ffff:203.0.113.1"}, "203.0.113.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := tt.proxies.ClientIP(r); got != tt.want {
				t.Fatalf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestLimitsBehindALocalProxy: behind a proxy on the same host every request
// comes from loopback; the per-address buckets still key each client apart, so
// one client's burst does not refuse the others (issue 36 review).
func TestLimitsBehindALocalProxy(t *testing.T) {
	c := NewCore(CoreConfig{Limits: RateLimits{LoginRate: 1, LoginBurst: 1, PayorAddrRate: 1, PayorAddrBurst: 1},
		Now: func() time.Time { return time.Unix(1000, 0) }})
	for name, limit := range map[string]func(client string) error{
		"sign-in": func(client string) error {
			r := httptest.NewRequest("POST", "/api/v1/auth/login", nil)
			r.RemoteAddr, r.Header["X-Forwarded-For"] = "127.0.0.1:5000", []string{client}
			return c.LimitLogin(httptest.NewRecorder(), r)
		},
		"payor": func(client string) error {
			r := httptest.NewRequest("GET", "/api/v1/payments/invoice", nil)
			r.RemoteAddr, r.Header["X-Forwarded-For"] = "127.0.0.1:5000", []string{client}
			return c.LimitPayorAddr(httptest.NewRecorder(), r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := limit("203.0.113.1"); err != nil {
				t.Fatalf("first client's first request: %v", err)
			}
			if err := limit("203.0.113.1"); err == nil {
				t.Fatal("first client's second request was let in: its bucket holds one")
			}
			if err := limit("203.0.113.2"); err != nil {
				t.Fatalf("another client behind the same proxy was refused: %v", err)
			}
		})
	}
}
