package kassa

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

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

	shown := fields(t, mustMarshal(t, e.WithSecret()))
	wantMember(t, shown, "secret", `"whsec_currentSECRETvalue"`)
	wantMember(t, shown, "id", `"we_0123"`)
	if strings.Contains(string(mustMarshal(t, e.WithSecret())), "previous") {
		t.Fatal("WithSecret shows the previous secret")
	}
	var back map[string]any
	if err := json.Unmarshal(mustMarshal(t, WebhookEndpoint{Status: EndpointEnabled}), &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back["disabled_reason"]; !ok || v != nil {
		t.Fatalf("enabled endpoint disabled_reason = %v (present %v), want null", v, ok)
	}
}
