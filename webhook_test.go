package kassa

import (
	"net"
	"reflect"
	"strings"
	"testing"
)

func TestValidateWebhookURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxWebhookURLLength-len("https://example.com/"))
	tests := []struct {
		url     string
		devnet  bool // accepted on devnet
		mainnet bool // accepted on mainnet
	}{
		{"https://example.com/hooks/kassa", true, true},
		{"https://example.com:8443/hooks?x=1", true, true},
		{"https://8.8.8.8/hook", true, true},
		{"https://[2001:4860:4860::8888]/hook", true, true},
		{long, true, true},
		{long + "a", false, false},

		// Plain http only to loopback, only on devnet.
		{"http://localhost:8080/hook", true, false},
		{"http://LOCALHOST./hook", true, false},
		{"http://api.localhost/hook", true, false},
		{"http://127.0.0.1:9000/hook", true, false},
		{"http://127.8.9.10/hook", true, false},
		{"http://[::1]:9000/hook", true, false},
		{"http://example.com/hook", false, false},
		{"http://10.0.0.1/hook", false, false},
		{"http://localhost.example.com/hook", false, false},

		// Mainnet refuses private, loopback and link-local hosts even over https.
		{"https://localhost/hook", true, false},
		{"https://127.0.0.1/hook", true, false},
		{"https://[::1]/hook", true, false},
		{"https://10.1.2.3/hook", true, false},
		{"https://172.16.0.1/hook", true, false},
		{"https://192.168.1.10/hook", true, false},
		{"https://169.254.169.254/latest/meta-data", true, false},
		{"https://100.64.0.1/hook", true, false},
		{"https://0.0.0.0/hook", true, false},
		{"https://[fc00::1]/hook", true, false},
		{"https://[fd12:3456::1]/hook", true, false},
		{"https://[fe80::1]/hook", true, false},
		{"https://[::ffff:10.0.0.1]/hook", true, false},
		{"https://[::ffff:127.0.0.1]/hook", true, false},
		{"https://[fe80::1%25eth0]/hook", true, false},
		{"https://[::1%25lo]/hook", true, false},

		// Not an absolute https URL.
		{"ftp://example.com/hook", false, false},
		{"ws://example.com/hook", false, false},
		{"/hooks/kassa", false, false},
		{"example.com/hook", false, false},
		{"https:///hook", false, false},
		{"mailto:ops@example.com", false, false},
		{"https://example.com/hook#frag", false, false},
		{"https://example.com/hook#", false, false},
		{"", false, false},
		{"https://exa mple.com/", false, false},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			env  Environment
			want bool
		}{{Devnet, tt.devnet}, {Mainnet, tt.mainnet}} {
			err := ValidateWebhookURL(tt.url, c.env)
			if c.want && err != nil {
				t.Errorf("ValidateWebhookURL(%.60q, %s) = %v, want ok", tt.url, c.env, err)
			}
			if !c.want {
				if err == nil {
					t.Errorf("ValidateWebhookURL(%.60q, %s) accepted", tt.url, c.env)
					continue
				}
				if e, ok := err.(*Error); !ok || e.Kind != KindInvalid || e.Code != "invalid_url" || e.Param != "url" || e.Message == "" {
					t.Errorf("ValidateWebhookURL(%.60q, %s) = %#v, want invalid_url on url", tt.url, c.env, err)
				}
			}
		}
	}
}

func TestWebhookEndpointInputValidate(t *testing.T) {
	url := "https://example.com/hook"
	tests := []struct {
		name   string
		in     WebhookEndpointInput
		env    Environment
		create bool
		code   string // "" for ok
		param  string
		events []string // EnabledEvents after a successful Validate
	}{
		{name: "create minimal", in: WebhookEndpointInput{URL: &url, EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			events: []string{"*"}},
		{name: "create removes duplicates in order",
			in:  WebhookEndpointInput{URL: &url, EnabledEvents: []string{"invoice.*", "invoice.paid", "invoice.*", "invoice.paid", "commerce.order.*"}},
			env: Mainnet, create: true, events: []string{"invoice.*", "invoice.paid", "commerce.order.*"}},
		{name: "create without url", in: WebhookEndpointInput{EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			code: "missing_param", param: "url"},
		{name: "create without events", in: WebhookEndpointInput{URL: &url}, env: Devnet, create: true,
			code: "missing_param", param: "enabled_events"},
		{name: "empty events", in: WebhookEndpointInput{URL: &url, EnabledEvents: []string{}}, env: Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "unknown event", in: WebhookEndpointInput{URL: &url, EnabledEvents: []string{"invoice.created", "invoice.deleted"}}, env: Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "bogus wildcard", in: WebhookEndpointInput{URL: &url, EnabledEvents: []string{"inv*"}}, env: Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "too many events", in: WebhookEndpointInput{URL: &url, EnabledEvents: repeated("*", MaxWebhookEnabledEvents+1)}, env: Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "as many events as allowed", in: WebhookEndpointInput{URL: &url, EnabledEvents: repeated("*", MaxWebhookEnabledEvents)}, env: Devnet, create: true,
			events: []string{"*"}},
		{name: "bad url", in: WebhookEndpointInput{URL: ptr("http://example.com/"), EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			code: "invalid_url", param: "url"},
		{name: "loopback on mainnet", in: WebhookEndpointInput{URL: ptr("https://127.0.0.1/"), EnabledEvents: []string{"*"}}, env: Mainnet, create: true,
			code: "invalid_url", param: "url"},
		{name: "description of 255", in: WebhookEndpointInput{URL: &url, Description: ptr(strings.Repeat("é", 255)), EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			events: []string{"*"}},
		{name: "description of 256", in: WebhookEndpointInput{URL: &url, Description: ptr(strings.Repeat("é", 256)), EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			code: "invalid_description", param: "description"},
		{name: "description with control", in: WebhookEndpointInput{Description: ptr("a\nb")}, env: Devnet,
			code: "invalid_description", param: "description"},
		{name: "description not utf-8", in: WebhookEndpointInput{Description: ptr("a\xffb")}, env: Devnet,
			code: "invalid_description", param: "description"},
		{name: "update with nothing", in: WebhookEndpointInput{}, env: Devnet},
		{name: "update disable only", in: WebhookEndpointInput{Disabled: ptr(true)}, env: Mainnet},
		{name: "update empty events", in: WebhookEndpointInput{EnabledEvents: []string{}}, env: Devnet,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "update bad url", in: WebhookEndpointInput{URL: ptr("ftp://example.com/")}, env: Devnet,
			code: "invalid_url", param: "url"},
		{name: "update events deduplicated", in: WebhookEndpointInput{EnabledEvents: []string{"*", "*"}}, env: Devnet,
			events: []string{"*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var original []string
			if tt.in.EnabledEvents != nil {
				original = append([]string{}, tt.in.EnabledEvents...)
			}
			callerSlice := tt.in.EnabledEvents
			err := tt.in.Validate(tt.env, tt.create)
			if tt.code != "" {
				wantCode(t, err, KindInvalid, tt.code, tt.param)
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v", err)
			}
			if tt.events != nil && !reflect.DeepEqual(tt.in.EnabledEvents, tt.events) {
				t.Fatalf("EnabledEvents = %q, want %q", tt.in.EnabledEvents, tt.events)
			}
			if !reflect.DeepEqual(callerSlice, original) {
				t.Fatalf("Validate changed the caller's slice: %q, was %q", callerSlice, original)
			}
		})
	}
}

func repeated(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestPublicIP(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"93.184.216.34", true},
		{"100.63.255.255", true}, // just below 100.64.0.0/10
		{"100.128.0.0", true},    // just above it
		{"172.15.255.255", true}, // just below 172.16.0.0/12
		{"172.32.0.0", true},     // just above it
		{"2001:4860:4860::8888", true},
		{"::ffff:8.8.8.8", true},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.0.1", false},
		{"169.254.169.254", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},
		{"::1", false},
		{"::", false},
		{"fc00::1", false},
		{"fdff:ffff::1", false},
		{"fe80::1", false},
		{"ff02::1", false},
		{"ff05::2", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:192.168.1.1", false},
		{"::ffff:100.64.0.1", false},
	}
	for _, tt := range tests {
		ip := net.ParseIP(tt.ip)
		if ip == nil {
			t.Fatalf("bad test address %q", tt.ip)
		}
		if got := PublicIP(ip); got != tt.want {
			t.Errorf("PublicIP(%s) = %v, want %v", tt.ip, got, tt.want)
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

func TestWebhookEndpointWants(t *testing.T) {
	tests := []struct {
		name   string
		status string
		events []string
		typ    string
		want   bool
	}{
		{"all", EndpointEnabled, []string{"*"}, EventOrderCreated, true},
		{"family", EndpointEnabled, []string{"invoice.*"}, EventInvoicePaid, true},
		{"other family", EndpointEnabled, []string{"invoice.*"}, EventPaymentCreated, false},
		{"exact", EndpointEnabled, []string{EventInvoicePaid, EventInvoiceExpired}, EventInvoiceExpired, true},
		{"disabled wants nothing", EndpointDisabled, []string{"*"}, EventInvoicePaid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := WebhookEndpoint{Status: tt.status, EnabledEvents: tt.events}
			if got := e.Wants(tt.typ); got != tt.want {
				t.Fatalf("Wants(%q) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}
