package kassa

import (
	"reflect"
	"strings"
	"testing"
)

func TestWebhookEndpointInputValidate(t *testing.T) {
	url := "https://example.com/hook"
	tests := []struct {
		name    string
		in      WebhookEndpointInput
		env     Environment
		create  bool
		targets WebhookTargets
		code    string // "" for ok
		param   string
		events  []string // EnabledEvents after a successful Validate
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
			code: "private_url_not_allowed", param: "url"},
		{name: "loopback on devnet", in: WebhookEndpointInput{URL: ptr("http://127.0.0.1:9000/"), EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			code: "private_url_not_allowed", param: "url"},
		{name: "update to localhost", in: WebhookEndpointInput{URL: ptr("https://localhost/")}, env: Devnet,
			code: "private_url_not_allowed", param: "url"},
		{name: "loopback on devnet allowed", in: WebhookEndpointInput{URL: ptr("http://127.0.0.1:9000/"), EnabledEvents: []string{"*"}}, env: Devnet, create: true,
			targets: WebhookTargets{AllowPrivate: true}, events: []string{"*"}},
		{name: "private on mainnet allowed", in: WebhookEndpointInput{URL: ptr("https://10.0.0.5/"), EnabledEvents: []string{"*"}}, env: Mainnet, create: true,
			targets: WebhookTargets{AllowPrivate: true}, code: "private_url_not_allowed", param: "url"},
		{name: "update to loopback on mainnet allowed", in: WebhookEndpointInput{URL: ptr("https://127.0.0.1/")}, env: Mainnet,
			targets: WebhookTargets{AllowPrivate: true}, code: "private_url_not_allowed", param: "url"},
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
			err := tt.in.Validate(tt.env, tt.create, tt.targets)
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
