package main

import (
	"io"
	"net/http/httptest"
	"testing"
)

// TestTrustedProxiesFlag: --trusted-proxies reads loopback (the default),
// none, and addresses and prefixes, and refuses anything else.
func TestTrustedProxiesFlag(t *testing.T) {
	tests := []struct {
		flag    string
		peer    string
		want    string // the client a request from peer naming 203.0.113.1 is keyed by
		invalid bool
	}{
		{flag: "loopback", peer: "127.0.0.1:1", want: "203.0.113.1"},
		{flag: "loopback", peer: "10.0.0.2:1", want: "10.0.0.2"},
		{flag: "none", peer: "127.0.0.1:1", want: "127.0.0.1"},
		{flag: "loopback,10.0.0.0/8", peer: "10.0.0.2:1", want: "203.0.113.1"},
		{flag: "10.0.0.2", peer: "127.0.0.1:1", want: "127.0.0.1"},
		{flag: "10.0.0.0/33", invalid: true},
		{flag: "proxy.local", invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.flag+" from "+tt.peer, func(t *testing.T) {
			f, err := parseServeFlags([]string{"--trusted-proxies", tt.flag}, io.Discard)
			if tt.invalid {
				if err == nil {
					t.Fatalf("--trusted-proxies %s was taken", tt.flag)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			r.Header.Set("X-Forwarded-For", "203.0.113.1")
			if got := f.trustedProxies.ClientIP(r); got != tt.want {
				t.Fatalf("client %s, want %s", got, tt.want)
			}
		})
	}
}
