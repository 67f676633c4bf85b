package delivery

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// TestWebhookEndpointInputValidate checks an endpoint's input under the
// operator's targets, as the store validates it.
func TestWebhookEndpointInputValidate(t *testing.T) {
	url := "https://example.com/hook"
	tests := []struct {
		name    string
		in      kassa.WebhookEndpointInput
		env     kassa.Environment
		create  bool
		targets Targets
		code    string // "" for ok
		param   string
		events  []string // EnabledEvents after a successful Validate
	}{
		{name: "create minimal", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			events: []string{"*"}},
		{name: "create removes duplicates in order",
			in:  kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{"invoice.*", "invoice.paid", "invoice.*", "invoice.paid", "commerce.order.*"}},
			env: kassa.Mainnet, create: true, events: []string{"invoice.*", "invoice.paid", "commerce.order.*"}},
		{name: "create without url", in: kassa.WebhookEndpointInput{EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			code: "missing_param", param: "url"},
		{name: "create without events", in: kassa.WebhookEndpointInput{URL: &url}, env: kassa.Devnet, create: true,
			code: "missing_param", param: "enabled_events"},
		{name: "empty events", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{}}, env: kassa.Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "unknown event", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{"invoice.created", "invoice.deleted"}}, env: kassa.Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "bogus wildcard", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{"inv*"}}, env: kassa.Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "too many events", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: repeated("*", kassa.MaxWebhookEnabledEvents+1)}, env: kassa.Devnet, create: true,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "as many events as allowed", in: kassa.WebhookEndpointInput{URL: &url, EnabledEvents: repeated("*", kassa.MaxWebhookEnabledEvents)}, env: kassa.Devnet, create: true,
			events: []string{"*"}},
		{name: "bad url", in: kassa.WebhookEndpointInput{URL: ptr("http://example.com/"), EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			code: "invalid_url", param: "url"},
		{name: "loopback on mainnet", in: kassa.WebhookEndpointInput{URL: ptr("https://127.0.0.1/"), EnabledEvents: []string{"*"}}, env: kassa.Mainnet, create: true,
			code: "private_url_not_allowed", param: "url"},
		{name: "loopback on devnet", in: kassa.WebhookEndpointInput{URL: ptr("http://127.0.0.1:9000/"), EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			code: "private_url_not_allowed", param: "url"},
		{name: "update to localhost", in: kassa.WebhookEndpointInput{URL: ptr("https://localhost/")}, env: kassa.Devnet,
			code: "private_url_not_allowed", param: "url"},
		{name: "loopback on devnet allowed", in: kassa.WebhookEndpointInput{URL: ptr("http://127.0.0.1:9000/"), EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			targets: Targets{AllowPrivate: true}, events: []string{"*"}},
		{name: "private on mainnet allowed", in: kassa.WebhookEndpointInput{URL: ptr("https://10.0.0.5/"), EnabledEvents: []string{"*"}}, env: kassa.Mainnet, create: true,
			targets: Targets{AllowPrivate: true}, code: "private_url_not_allowed", param: "url"},
		{name: "update to loopback on mainnet allowed", in: kassa.WebhookEndpointInput{URL: ptr("https://127.0.0.1/")}, env: kassa.Mainnet,
			targets: Targets{AllowPrivate: true}, code: "private_url_not_allowed", param: "url"},
		{name: "description of 255", in: kassa.WebhookEndpointInput{URL: &url, Description: ptr(strings.Repeat("é", 255)), EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			events: []string{"*"}},
		{name: "description of 256", in: kassa.WebhookEndpointInput{URL: &url, Description: ptr(strings.Repeat("é", 256)), EnabledEvents: []string{"*"}}, env: kassa.Devnet, create: true,
			code: "invalid_description", param: "description"},
		{name: "description with control", in: kassa.WebhookEndpointInput{Description: ptr("a\nb")}, env: kassa.Devnet,
			code: "invalid_description", param: "description"},
		{name: "description not utf-8", in: kassa.WebhookEndpointInput{Description: ptr("a\xffb")}, env: kassa.Devnet,
			code: "invalid_description", param: "description"},
		{name: "update with nothing", in: kassa.WebhookEndpointInput{}, env: kassa.Devnet},
		{name: "update disable only", in: kassa.WebhookEndpointInput{Disabled: ptr(true)}, env: kassa.Mainnet},
		{name: "update empty events", in: kassa.WebhookEndpointInput{EnabledEvents: []string{}}, env: kassa.Devnet,
			code: "invalid_enabled_events", param: "enabled_events"},
		{name: "update bad url", in: kassa.WebhookEndpointInput{URL: ptr("ftp://example.com/")}, env: kassa.Devnet,
			code: "invalid_url", param: "url"},
		{name: "update events deduplicated", in: kassa.WebhookEndpointInput{EnabledEvents: []string{"*", "*"}}, env: kassa.Devnet,
			events: []string{"*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var original []string
			if tt.in.EnabledEvents != nil {
				original = append([]string{}, tt.in.EnabledEvents...)
			}
			callerSlice := tt.in.EnabledEvents
			err := tt.in.Validate(tt.env, tt.create, tt.targets.ValidateURL)
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.param)
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

func ptr[T any](v T) *T { return &v }

func wantCode(t *testing.T, err error, code, param string) {
	t.Helper()
	e, ok := err.(*kassa.Error)
	if !ok {
		t.Fatalf("got %T %v, want *kassa.Error %s", err, err, code)
	}
	if e.Kind != kassa.KindInvalid || e.Code != code || e.Param != param || e.Message == "" {
		t.Fatalf("got kind %q code %q param %q, want invalid %q %q (%v)", e.Kind, e.Code, e.Param, code, param, e)
	}
}
