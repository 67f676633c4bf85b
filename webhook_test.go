package kassa

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
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

func TestSigningSecrets(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	until := now.Add(WebhookSecretGrace)
	tests := []struct {
		name string
		e    WebhookEndpoint
		at   time.Time
		want []string
	}{
		{"never rotated", WebhookEndpoint{Secret: "whsec_new"}, now, []string{"whsec_new"}},
		{"within grace", WebhookEndpoint{Secret: "whsec_new", PreviousSecret: "whsec_old", PreviousSecretUntil: &until}, now,
			[]string{"whsec_new", "whsec_old"}},
		{"just before grace ends", WebhookEndpoint{Secret: "whsec_new", PreviousSecret: "whsec_old", PreviousSecretUntil: &until},
			until.Add(-time.Nanosecond), []string{"whsec_new", "whsec_old"}},
		{"grace ended", WebhookEndpoint{Secret: "whsec_new", PreviousSecret: "whsec_old", PreviousSecretUntil: &until}, until,
			[]string{"whsec_new"}},
		{"long after", WebhookEndpoint{Secret: "whsec_new", PreviousSecret: "whsec_old", PreviousSecretUntil: &until},
			now.Add(25 * time.Hour), []string{"whsec_new"}},
		{"previous without until", WebhookEndpoint{Secret: "whsec_new", PreviousSecret: "whsec_old"}, now, []string{"whsec_new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.SigningSecrets(tt.at); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SigningSecrets = %q, want %q", got, tt.want)
			}
		})
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

// sign computes one Standard Webhooks signature independently of WebhookHeaders.
func sign(t *testing.T, secret, id string, ts int64, payload string) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("test secret %q: %v", secret, err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "." + payload))
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestWebhookHeaders(t *testing.T) {
	t.Run("standard webhooks test vector", func(t *testing.T) {
		h, err := WebhookHeaders([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
			time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"webhook-id":        "msg_p5jXN8AQM9LWM0D4loKWxJek",
			"webhook-timestamp": "1614265330",
			"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
		}
		if !reflect.DeepEqual(h, want) {
			t.Fatalf("headers = %v, want %v", h, want)
		}
	})

	key1 := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	key2 := "whsec_" + base64.StdEncoding.EncodeToString([]byte("another secret of 32 bytes......"))
	ts := time.Date(2026, 11, 22, 12, 0, 0, 999_999_999, time.UTC) // fractions are dropped
	payload := `{"id":"evt_1","type":"invoice.paid"}`
	tests := []struct {
		name    string
		secrets []string
		id      string
		want    string
	}{
		{"one secret", []string{key1}, "evt_1", sign(t, key1, "evt_1", ts.Unix(), payload)},
		{"two secrets, current first", []string{key2, key1}, "evt_1",
			sign(t, key2, "evt_1", ts.Unix(), payload) + " " + sign(t, key1, "evt_1", ts.Unix(), payload)},
		{"secret without prefix", []string{strings.TrimPrefix(key1, "whsec_")}, "evt_2", sign(t, key1, "evt_2", ts.Unix(), payload)},
		{"no secrets", nil, "evt_1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := WebhookHeaders(tt.secrets, tt.id, ts, []byte(payload))
			if err != nil {
				t.Fatal(err)
			}
			if h["webhook-id"] != tt.id || h["webhook-timestamp"] != strconv.FormatInt(ts.Unix(), 10) || h["webhook-signature"] != tt.want {
				t.Fatalf("headers = %v, want signature %q", h, tt.want)
			}
			again, _ := WebhookHeaders(tt.secrets, tt.id, ts, []byte(payload))
			if !reflect.DeepEqual(h, again) {
				t.Fatalf("not deterministic: %v then %v", h, again)
			}
		})
	}
	t.Run("signature covers id, timestamp and payload", func(t *testing.T) {
		base, _ := WebhookHeaders([]string{key1}, "evt_1", ts, []byte(payload))
		for name, h := range map[string]func() (map[string]string, error){
			"id": func() (map[string]string, error) { return WebhookHeaders([]string{key1}, "evt_2", ts, []byte(payload)) },
			"timestamp": func() (map[string]string, error) {
				return WebhookHeaders([]string{key1}, "evt_1", ts.Add(time.Second), []byte(payload))
			},
			"payload": func() (map[string]string, error) {
				return WebhookHeaders([]string{key1}, "evt_1", ts, []byte(payload+" "))
			},
			"secret": func() (map[string]string, error) { return WebhookHeaders([]string{key2}, "evt_1", ts, []byte(payload)) },
		} {
			got, err := h()
			if err != nil {
				t.Fatal(err)
			}
			if got["webhook-signature"] == base["webhook-signature"] {
				t.Errorf("changing the %s kept the signature", name)
			}
		}
	})
	t.Run("bad secret", func(t *testing.T) {
		if _, err := WebhookHeaders([]string{key1, "whsec_not base64!"}, "evt_1", ts, []byte(payload)); err == nil {
			t.Fatal("a secret that is not base64 was accepted")
		}
	})
}

func TestNewWebhookSecret(t *testing.T) {
	a, b := NewWebhookSecret(), NewWebhookSecret()
	if a == b {
		t.Fatalf("NewWebhookSecret repeated %s", a)
	}
	for _, s := range []string{a, b} {
		raw, ok := strings.CutPrefix(s, WebhookSecretPrefix)
		key, err := base64.StdEncoding.DecodeString(raw)
		if !ok || err != nil || len(key) != 32 {
			t.Fatalf("secret %q: prefix %v, %d bytes, %v", s, ok, len(key), err)
		}
		if _, err := WebhookHeaders([]string{s}, "evt_1", time.Unix(0, 0), nil); err != nil {
			t.Fatalf("WebhookHeaders refuses a new secret: %v", err)
		}
	}
}

func TestWebhookEndpointJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	reason := DisabledGone
	e := &WebhookEndpoint{
		ID: "we_0123", MerchantID: 7, Environment: Mainnet, URL: "https://example.com/hook?a=1&b=2", Description: "ops",
		EnabledEvents: []string{"invoice.*"}, Status: EndpointDisabled, DisabledReason: &reason,
		Secret: "whsec_currentSECRETvalue", PreviousSecret: "whsec_previousSECRETvalue", PreviousSecretUntil: &now,
		CreatedAt: now, UpdatedAt: now.Add(time.Second),
	}
	for name, v := range map[string]any{"value": *e, "pointer": e, "in a list": []*WebhookEndpoint{e}} {
		t.Run(name, func(t *testing.T) {
			b := mustMarshal(t, v)
			if strings.Contains(string(b), "SECRETvalue") || strings.Contains(string(b), `"secret"`) {
				t.Fatalf("secret shown: %s", b)
			}
		})
	}
	b, err := MarshalJSON(e) // as the API renders it, without HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, b)
	wantMember(t, m, "id", `"we_0123"`)
	wantMember(t, m, "object", `"webhook_endpoint"`)
	wantMember(t, m, "url", `"https://example.com/hook?a=1&b=2"`)
	wantMember(t, m, "description", `"ops"`)
	wantMember(t, m, "enabled_events", `["invoice.*"]`)
	wantMember(t, m, "status", `"disabled"`)
	wantMember(t, m, "disabled_reason", `"endpoint_gone"`)
	wantMember(t, m, "environment", `"mainnet"`)
	wantMember(t, m, "created_at", `"`+FormatTime(now)+`"`)
	wantMember(t, m, "updated_at", `"`+FormatTime(now.Add(time.Second))+`"`)

	shown := fields(t, mustMarshal(t, SecretShown{e}))
	wantMember(t, shown, "secret", `"whsec_currentSECRETvalue"`)
	wantMember(t, shown, "id", `"we_0123"`)
	if strings.Contains(string(mustMarshal(t, SecretShown{e})), "previous") {
		t.Fatal("SecretShown shows the previous secret")
	}
	var back map[string]any
	if err := json.Unmarshal(mustMarshal(t, WebhookEndpoint{Status: EndpointEnabled}), &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back["disabled_reason"]; !ok || v != nil {
		t.Fatalf("enabled endpoint disabled_reason = %v (present %v), want null", v, ok)
	}
}
