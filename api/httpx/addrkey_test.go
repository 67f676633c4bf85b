package httpx

import (
	"net/http/httptest"
	"testing"
	"time"
)

// TestAddrKeyBuckets: the per-address buckets key an IPv6 client by its /64 (two
// addresses of one /64 share a bucket, another /64 has its own) and an IPv4 client
// by its address, mapped into IPv6 or not.
func TestAddrKeyBuckets(t *testing.T) {
	tests := []struct {
		name         string
		first, then  string // peer addresses: first empties the bucket, then asks again
		sharesBucket bool
	}{
		{"two addresses of one /64", "[2001:db8:1:2::1]:4000", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:4001", true},
		{"another /64", "[2001:db8:1:2::1]:4000", "[2001:db8:1:3::1]:4000", false},
		{"a link-local zone is ignored", "[fe80::1%eth0]:4000", "[fe80::2%eth1]:4000", true},
		{"IPv4 mapped into IPv6 is IPv4", "[::ffff:192.0.2.1]:4000", "192.0.2.1:4001", true},
		{"IPv4 addresses one apart", "192.0.2.1:4000", "192.0.2.2:4000", false},
		{"an IPv4 address and its IPv6 /64 look-alike", "192.0.2.1:4000", "[::c000:201]:4000", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCore(CoreConfig{Limits: RateLimits{LoginRate: 1, LoginBurst: 1}, Now: func() time.Time { return time.Unix(1000, 0) }})
			login := func(addr string) error {
				t.Helper()
				r := httptest.NewRequest("POST", "/api/v1/auth/login", nil)
				r.RemoteAddr = addr
				return c.LimitLogin(httptest.NewRecorder(), r)
			}
			if err := login(tt.first); err != nil {
				t.Fatalf("first request: %v", err)
			}
			err := login(tt.then)
			if tt.sharesBucket && err == nil {
				t.Fatalf("%s was let in: it shares the bucket %s emptied", tt.then, tt.first)
			}
			if !tt.sharesBucket && err != nil {
				t.Fatalf("%s was refused (%v): its bucket is not %s's", tt.then, err, tt.first)
			}
		})
	}
}
