package delivery

import (
	"net"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// TestTargetsRefuse is the address rule: every non-public range, IPv4 and
// IPv6, with its IPv4-mapped, NAT64 and 6to4 forms, refused by default; with
// AllowPrivate only loopback, private and carrier-grade NAT are let through, and
// only on devnet: mainnet (and an unknown environment) refuses them still.
func TestTargetsRefuse(t *testing.T) {
	tests := []struct {
		ip      string
		class   string // AddressClass, and Refuse by default
		allowed bool   // Refuse is "" with AllowPrivate
	}{
		{"8.8.8.8", AddressPublic, true},
		{"93.184.216.34", AddressPublic, true},
		{"100.63.255.255", AddressPublic, true}, // just below 100.64.0.0/10
		{"100.128.0.0", AddressPublic, true},    // just above it
		{"172.15.255.255", AddressPublic, true}, // just below 172.16.0.0/12
		{"172.32.0.0", AddressPublic, true},     // just above it
		{"169.253.255.255", AddressPublic, true},
		{"2001:4860:4860::8888", AddressPublic, true},
		{"::ffff:8.8.8.8", AddressPublic, true},
		{"64:ff9b::808:808", AddressPublic, true},
		{"2002:808:808::1", AddressPublic, true},

		{"127.0.0.1", AddressLoopback, true},
		{"127.255.255.254", AddressLoopback, true},
		{"::1", AddressLoopback, true},
		{"::ffff:127.0.0.1", AddressLoopback, true},
		{"64:ff9b::7f00:1", AddressLoopback, true},
		{"2002:7f00:1::", AddressLoopback, true},

		{"10.0.0.1", AddressPrivate, true},
		{"10.255.255.255", AddressPrivate, true},
		{"172.16.0.1", AddressPrivate, true},
		{"172.31.255.255", AddressPrivate, true},
		{"192.168.0.1", AddressPrivate, true},
		{"::ffff:10.0.0.1", AddressPrivate, true},
		{"::ffff:192.168.1.1", AddressPrivate, true},
		{"fc00::1", AddressPrivate, true},
		{"fdff:ffff::1", AddressPrivate, true},
		{"fec0::1", AddressPrivate, true},
		{"64:ff9b::a00:1", AddressPrivate, true},

		{"100.64.0.1", AddressCGNAT, true},
		{"100.127.255.255", AddressCGNAT, true},
		{"::ffff:100.64.0.1", AddressCGNAT, true},

		{"169.254.169.254", AddressLinkLocal, false}, // the cloud metadata service
		{"169.254.0.1", AddressLinkLocal, false},
		{"::ffff:169.254.169.254", AddressLinkLocal, false},
		{"64:ff9b::a9fe:a9fe", AddressLinkLocal, false},
		{"2002:a9fe:a9fe::", AddressLinkLocal, false},
		{"fe80::1", AddressLinkLocal, false},
		{"febf::1", AddressLinkLocal, false},
		{"224.0.0.1", AddressLinkLocal, false},
		{"ff02::1", AddressLinkLocal, false},

		{"0.0.0.0", AddressUnspecified, false},
		{"::", AddressUnspecified, false},
		{"::ffff:0.0.0.0", AddressUnspecified, false},

		{"239.255.255.250", AddressMulticast, false},
		{"ff05::2", AddressMulticast, false},

		{"0.1.2.3", AddressReserved, false},
		{"240.0.0.1", AddressReserved, false},
		{"255.255.255.255", AddressReserved, false},
		{"::7f00:1", AddressReserved, false}, // IPv4-compatible, deprecated
	}
	for _, tt := range tests {
		ip := net.ParseIP(tt.ip)
		if ip == nil {
			t.Fatalf("bad test address %q", tt.ip)
		}
		if got := AddressClass(ip); got != tt.class {
			t.Errorf("AddressClass(%s) = %q, want %q", tt.ip, got, tt.class)
		}
		if got := PublicIP(ip); got != (tt.class == AddressPublic) {
			t.Errorf("PublicIP(%s) = %v", tt.ip, got)
		}
		for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet, "staging"} {
			if got := (Targets{}).Refuse(ip, env); got != tt.class {
				t.Errorf("Refuse(%s, %s) = %q by default, want %q", tt.ip, env, got, tt.class)
			}
			want := tt.class
			if tt.allowed && env == kassa.Devnet {
				want = ""
			}
			if got := (Targets{AllowPrivate: true}).Refuse(ip, env); got != want {
				t.Errorf("Refuse(%s, %s) = %q with private allowed, want %q", tt.ip, env, got, want)
			}
		}
	}
	if got := (Targets{AllowPrivate: true}).Refuse(nil, kassa.Devnet); got != AddressReserved {
		t.Errorf("Refuse(nil) = %q, want %q", got, AddressReserved)
	}
}

func TestTargetsPrivateAllowed(t *testing.T) {
	tests := []struct {
		targets Targets
		env     kassa.Environment
		want    bool
	}{
		{Targets{}, kassa.Devnet, false},
		{Targets{}, kassa.Mainnet, false},
		{Targets{AllowPrivate: true}, kassa.Devnet, true},
		{Targets{AllowPrivate: true}, kassa.Mainnet, false},
		{Targets{AllowPrivate: true}, "", false},
		{Targets{AllowPrivate: true}, "DEVNET", false},
	}
	for _, tt := range tests {
		if got := tt.targets.PrivateAllowed(tt.env); got != tt.want {
			t.Errorf("%+v.PrivateAllowed(%q) = %v, want %v", tt.targets, tt.env, got, tt.want)
		}
	}
}

func TestTargetsValidateURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", kassa.MaxWebhookURLLength-len("https://example.com/"))
	const (
		ok      = ""
		invalid = "invalid_url"
		private = "private_url_not_allowed"
	)
	tests := []struct {
		url string
		// the code on devnet and mainnet by default, then with AllowPrivate
		devnet, mainnet, devnetAllowed, mainnetAllowed string
	}{
		{"https://example.com/hooks/kassa", ok, ok, ok, ok},
		{"https://example.com:8443/hooks?x=1", ok, ok, ok, ok},
		{"https://8.8.8.8/hook", ok, ok, ok, ok},
		{"https://[2001:4860:4860::8888]/hook", ok, ok, ok, ok},
		{"https://EXAMPLE.com./hook", ok, ok, ok, ok},
		{long, ok, ok, ok, ok},
		{long + "a", invalid, invalid, invalid, invalid},

		// Plain http only to loopback, on devnet, with private targets allowed; a
		// loopback host on mainnet is refused as such.
		{"http://localhost:8080/hook", private, private, ok, private},
		{"http://LOCALHOST./hook", private, private, ok, private},
		{"http://api.localhost/hook", private, private, ok, private},
		{"http://127.0.0.1:9000/hook", private, private, ok, private},
		{"http://127.8.9.10/hook", private, private, ok, private},
		{"http://[::1]:9000/hook", private, private, ok, private},
		{"http://[::ffff:127.0.0.1]:9000/hook", private, private, ok, private},
		{"http://example.com/hook", invalid, invalid, invalid, invalid},
		{"http://10.0.0.1/hook", private, private, invalid, private},
		{"http://localhost.example.com/hook", invalid, invalid, invalid, invalid},

		// Private, loopback and carrier-grade NAT hosts need the operator's flag,
		// over https too, and only on devnet: mainnet refuses them whatever the
		// flag.
		{"https://localhost/hook", private, private, ok, private},
		{"https://127.0.0.1/hook", private, private, ok, private},
		{"https://[::1]/hook", private, private, ok, private},
		{"https://[::1%25lo]/hook", private, private, ok, private},
		{"https://10.0.0.5/", private, private, ok, private},
		{"https://10.1.2.3/hook", private, private, ok, private},
		{"https://172.16.0.1/hook", private, private, ok, private},
		{"https://192.168.1.10/hook", private, private, ok, private},
		{"https://100.64.0.1/hook", private, private, ok, private},
		{"https://[fc00::1]/hook", private, private, ok, private},
		{"https://[fd12:3456::1]/hook", private, private, ok, private},
		{"https://[::ffff:10.0.0.1]/hook", private, private, ok, private},
		{"https://[::ffff:127.0.0.1]/hook", private, private, ok, private},

		// Link-local (the metadata service), unspecified, multicast and reserved
		// hosts never.
		{"https://169.254.169.254/latest/meta-data", private, private, private, private},
		{"https://[::ffff:169.254.169.254]/latest", private, private, private, private},
		{"https://[fe80::1]/hook", private, private, private, private},
		{"https://[fe80::1%25eth0]/hook", private, private, private, private},
		{"https://0.0.0.0/hook", private, private, private, private},
		{"https://[::]/hook", private, private, private, private},
		{"https://239.1.2.3/hook", private, private, private, private},
		{"https://240.0.0.1/hook", private, private, private, private},

		// Numeric hosts in other forms, which resolvers may read as addresses.
		{"https://2130706433/hook", invalid, invalid, invalid, invalid},
		{"https://0x7f000001/hook", invalid, invalid, invalid, invalid},
		{"https://127.1/hook", invalid, invalid, invalid, invalid},
		{"https://0177.0.0.1/hook", invalid, invalid, invalid, invalid},
		{"https://1.2.3.4.5/hook", invalid, invalid, invalid, invalid},

		// Not an absolute https URL.
		{"ftp://example.com/hook", invalid, invalid, invalid, invalid},
		{"ftp://127.0.0.1/hook", invalid, invalid, invalid, invalid},
		{"ws://example.com/hook", invalid, invalid, invalid, invalid},
		{"/hooks/kassa", invalid, invalid, invalid, invalid},
		{"example.com/hook", invalid, invalid, invalid, invalid},
		{"https:///hook", invalid, invalid, invalid, invalid},
		{"https://:8443/hook", invalid, invalid, invalid, invalid},
		{"mailto:ops@example.com", invalid, invalid, invalid, invalid},
		{"https://example.com/hook#frag", invalid, invalid, invalid, invalid},
		{"https://example.com/hook#", invalid, invalid, invalid, invalid},
		{"", invalid, invalid, invalid, invalid},
		{"https://exa mple.com/", invalid, invalid, invalid, invalid},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			env     kassa.Environment
			targets Targets
			want    string
		}{
			{kassa.Devnet, Targets{}, tt.devnet},
			{kassa.Mainnet, Targets{}, tt.mainnet},
			{kassa.Devnet, Targets{AllowPrivate: true}, tt.devnetAllowed},
			{kassa.Mainnet, Targets{AllowPrivate: true}, tt.mainnetAllowed},
		} {
			err := c.targets.ValidateURL(tt.url, c.env)
			if c.want == ok {
				if err != nil {
					t.Errorf("%+v.ValidateURL(%.60q, %s) = %v, want ok", c.targets, tt.url, c.env, err)
				}
				continue
			}
			if e, isErr := err.(*kassa.Error); !isErr || e.Kind != kassa.KindInvalid || e.Code != c.want || e.Param != "url" || e.Message == "" {
				t.Errorf("%+v.ValidateURL(%.60q, %s) = %#v, want %s on url", c.targets, tt.url, c.env, err, c.want)
			}
		}
	}
}

// TestTargetsRefusalHint: the refusal tells a devnet merchant that the
// operator could allow private targets, and does not tell a mainnet one so.
func TestTargetsRefusalHint(t *testing.T) {
	allowed := Targets{AllowPrivate: true}
	tests := []struct {
		targets Targets
		env     kassa.Environment
		url     string
		hint    bool
	}{
		{Targets{}, kassa.Devnet, "https://10.0.0.5/", true},
		{Targets{}, kassa.Mainnet, "https://10.0.0.5/", false},
		{allowed, kassa.Mainnet, "https://10.0.0.5/", false},
		{allowed, kassa.Mainnet, "https://127.0.0.1/", false},
		{allowed, kassa.Devnet, "https://169.254.169.254/", false},
	}
	for _, tt := range tests {
		err := tt.targets.ValidateURL(tt.url, tt.env)
		e, isErr := err.(*kassa.Error)
		if !isErr || e.Code != "private_url_not_allowed" {
			t.Fatalf("%+v.ValidateURL(%q, %s) = %v, want private_url_not_allowed", tt.targets, tt.url, tt.env, err)
		}
		if got := strings.Contains(e.Message, "operator allows"); got != tt.hint {
			t.Errorf("%s %s: message %q, want the operator's hint %v", tt.env, tt.url, e.Message, tt.hint)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"localhost.", true},
		{"app.localhost", true},
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"localhost.example.com", false},
		{"notlocalhost", false},
		{"10.0.0.1", false},
		{"example.com", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsLoopbackHost(tt.host); got != tt.want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
