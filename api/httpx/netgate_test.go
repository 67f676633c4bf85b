package httpx

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestParseNetworks(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"127.0.0.0/8,::1/128", "127.0.0.0/8,::1/128", ""},
		{" 10.1.2.3/8 , 192.0.2.7 ", "10.0.0.0/8,192.0.2.7/32", ""},
		{"2001:db8::1", "2001:db8::1/128", ""},
		{"::ffff:10.0.0.0/104", "10.0.0.0/8", ""},
		{"", "", "no network given"},
		{" , ", "", "no network given"},
		{"10.0.0.0/33", "", "neither"},
		{"localhost", "", "neither"},
		{"fe80::1%eth0", "", "neither"},
	}
	for _, tt := range tests {
		got, err := ParseNetworks(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseNetworks(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseNetworks(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestOnlyFrom(t *testing.T) {
	nets, err := ParseNetworks("127.0.0.0/8,::1/128,10.20.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	h := OnlyFrom(nets, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("secret figures"))
	}))
	type gateCase struct {
		name    string
		remote  string
		headers map[string]string
		allowed bool
	}
	tests := []gateCase{
		{"loopback v4", "127.0.0.1:5000", nil, true},
		{"loopback v4 elsewhere in 8", "127.9.9.9:5000", nil, true},
		{"loopback v6", "[::1]:5000", nil, true},
		{"v4 mapped by a dual-stack listener", "[::ffff:127.0.0.1]:5000", nil, true},
		{"allowed private range", "10.20.3.4:5000", nil, true},
		{"outside the range", "10.21.3.4:5000", nil, false},
		{"public", "203.0.113.9:5000", nil, false},
		{"public v6", "[2001:db8::1]:5000", nil, false},
		{"link-local with zone", "[fe80::1%eth0]:5000", nil, false},
		{"no port", "127.0.0.1", nil, false},
		{"garbage", "nonsense", nil, false},
		{"claims loopback in X-Forwarded-For", "203.0.113.9:5000", map[string]string{"X-Forwarded-For": "127.0.0.1"}, false},
		{"through a local proxy (X-Forwarded-For)", "127.0.0.1:5000", map[string]string{"X-Forwarded-For": "203.0.113.9"}, false},
		{"through a local proxy (Forwarded)", "127.0.0.1:5000", map[string]string{"Forwarded": "for=203.0.113.9"}, false},
		{"through a local proxy (X-Real-IP)", "127.0.0.1:5000", map[string]string{"X-Real-IP": "203.0.113.9"}, false},
	}
	// Every client-IP header a proxy or CDN may add refuses the request, whatever
	// its peer (issue 36: CF-Connecting-IP, True-Client-IP, X-Client-IP passed).
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-IP", "CF-Connecting-IP", "True-Client-IP",
		"X-Client-IP", "Fastly-Client-IP", "X-Cluster-Client-IP", "Client-IP"} {
		tests = append(tests, gateCase{"proxy header " + h, "127.0.0.1:5000", map[string]string{h: "203.0.113.9"}, false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/metrics", nil)
			r.RemoteAddr = tt.remote
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h(w, r)
			if tt.allowed {
				if w.Code != 200 || w.Body.String() != "secret figures" {
					t.Fatalf("status %d %q, want the figures", w.Code, w.Body)
				}
				return
			}
			want := httptest.NewRecorder()
			NotFound(want, r)
			if w.Code != 404 || w.Body.String() != want.Body.String() || w.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("status %d %q, want the 404 of an unknown URL %q", w.Code, w.Body, want.Body)
			}
		})
	}
	if !LoopbackNetworks.Contains(netip.MustParseAddr("::ffff:127.0.0.1")) || LoopbackNetworks.Contains(netip.MustParseAddr("192.0.2.1")) {
		t.Fatal("LoopbackNetworks")
	}
}
