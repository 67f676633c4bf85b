package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
)

// countedStore is a store holding one merchant's endpoints: its writes ask the
// service's decision as the real store does, and write only when allowed.
type countedStore struct {
	endpoints.Store // the rest, unused here
	held            int
	ep              kassa.WebhookEndpoint
	called, wrote   bool
	got             kassa.WebhookEndpointInput // what the last create or update was given
}

func (s *countedStore) CreateWebhookEndpoint(_ context.Context, p kassa.Principal, in kassa.WebhookEndpointInput,
	decide func(int) error) (*kassa.WebhookEndpoint, error) {
	s.called, s.got = true, in
	if err := decide(s.held); err != nil {
		return nil, err
	}
	s.wrote = true
	return &kassa.WebhookEndpoint{ID: "we_new", MerchantID: p.MerchantID, Status: kassa.EndpointEnabled}, nil
}

func (s *countedStore) UpdateWebhookEndpoint(_ context.Context, p kassa.Principal, id string,
	in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error) {
	s.called, s.got, s.wrote = true, in, true
	return &kassa.WebhookEndpoint{ID: id, MerchantID: p.MerchantID, Status: kassa.EndpointEnabled}, nil
}

func (s *countedStore) ResendEvent(_ context.Context, _ kassa.Principal, eventID, endpointID string,
	decide func(*kassa.WebhookEndpoint) error) ([]*kassa.WebhookDelivery, error) {
	if endpointID != "" {
		if endpointID != s.ep.ID {
			return nil, kassa.Invalidf("endpoint_id", "resource_missing", "No such webhook endpoint: %s.", endpointID)
		}
		if err := decide(&s.ep); err != nil {
			return nil, err
		}
	}
	s.wrote = true
	return []*kassa.WebhookDelivery{{EventID: eventID, EndpointID: s.ep.ID}}, nil
}

// wantCode fails t unless err is the error of code ("" : none).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := kassa.ErrorCode(err); got != code {
		t.Fatalf("got %v (code %q), want code %q", err, got, code)
	}
}

func TestCreateDecides(t *testing.T) {
	p := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	for _, tc := range []struct {
		name string
		held int
		code string
	}{
		{name: "none yet", held: 0},
		{name: "one short of the limit", held: kassa.MaxWebhookEndpoints - 1},
		{name: "at the limit", held: kassa.MaxWebhookEndpoints, code: "endpoint_limit_reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &countedStore{held: tc.held}
			_, err := endpoints.Over(s, delivery.Targets{}).CreateWebhookEndpoint(context.Background(), p,
				kassa.WebhookEndpointInput{URL: ptr("https://example.com/hook"), EnabledEvents: []string{"*"}})
			wantCode(t, err, tc.code)
			if s.wrote != (tc.code == "") {
				t.Errorf("store wrote the endpoint: %v, want %v", s.wrote, tc.code == "")
			}
		})
	}
}

func TestResendDecides(t *testing.T) {
	p := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	for _, tc := range []struct {
		name     string
		status   string
		endpoint string
		code     string
	}{
		{name: "enabled endpoint", status: kassa.EndpointEnabled, endpoint: "we_1"},
		{name: "disabled endpoint", status: kassa.EndpointDisabled, endpoint: "we_1", code: "endpoint_disabled"},
		{name: "every enabled endpoint", status: kassa.EndpointDisabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &countedStore{ep: kassa.WebhookEndpoint{ID: "we_1", Status: tc.status}}
			_, err := endpoints.Over(s, delivery.Targets{}).ResendEvent(context.Background(), p, "evt", tc.endpoint)
			wantCode(t, err, tc.code)
			if s.wrote != (tc.code == "") {
				t.Errorf("store queued the resend: %v, want %v", s.wrote, tc.code == "")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestCheckInput: the service checks an endpoint's input
// (kassa.WebhookEndpointInput.Validate) at create, where url and enabled_events
// are required, and at update, where only the fields given are; a refused
// input reaches no store, and repeated events are dropped before it.
func TestCheckInput(t *testing.T) {
	p := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	url, events := ptr("https://example.com/hook"), []string{"*"}
	type refusal struct{ code, param string } // the zero value: accepted
	var (
		missingURL = refusal{"missing_param", "url"}
		badURL     = refusal{"invalid_url", "url"}
		badDesc    = refusal{"invalid_description", "description"}
		badEvents  = refusal{"invalid_enabled_events", "enabled_events"}
	)
	for _, tc := range []struct {
		name           string
		in             kassa.WebhookEndpointInput
		create, update refusal
		wantEvents     string // the events the store is given, when accepted
	}{
		{name: "url and events", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: events}, wantEvents: "[*]"},
		{name: "repeated events", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: []string{"invoice.*", "invoice.paid", "invoice.*"}},
			wantEvents: "[invoice.* invoice.paid]"},
		{name: "nothing", create: missingURL, wantEvents: "[]"},
		{name: "no url", in: kassa.WebhookEndpointInput{EnabledEvents: events}, create: missingURL, wantEvents: "[*]"},
		{name: "no events", in: kassa.WebhookEndpointInput{URL: url}, create: refusal{"missing_param", "enabled_events"}, wantEvents: "[]"},
		{name: "disabled only", in: kassa.WebhookEndpointInput{Disabled: ptr(true)}, create: missingURL, wantEvents: "[]"},
		{name: "plain http", in: kassa.WebhookEndpointInput{URL: ptr("http://example.com/"), EnabledEvents: events},
			create: badURL, update: badURL},
		{name: "ftp", in: kassa.WebhookEndpointInput{URL: ptr("ftp://example.com/")}, create: badURL, update: badURL},
		{name: "fragment", in: kassa.WebhookEndpointInput{URL: ptr("https://example.com/#x"), EnabledEvents: events},
			create: badURL, update: badURL},
		{name: "url too long", in: kassa.WebhookEndpointInput{URL: ptr("https://example.com/" + strings.Repeat("a", kassa.MaxWebhookURLLength))},
			create: badURL, update: badURL},
		{name: "long description", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: events, Description: ptr(strings.Repeat("d", 256))},
			create: badDesc, update: badDesc},
		{name: "control in description", in: kassa.WebhookEndpointInput{Description: ptr("a\nb")}, create: missingURL, update: badDesc},
		{name: "empty events", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: []string{}}, create: badEvents, update: badEvents},
		{name: "unknown event", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: []string{"invoice.deleted"}},
			create: badEvents, update: badEvents},
		{name: "bad wildcard", in: kassa.WebhookEndpointInput{EnabledEvents: []string{"inv*"}}, create: missingURL, update: badEvents},
		{name: "too many events", in: kassa.WebhookEndpointInput{URL: url, EnabledEvents: make([]string, kassa.MaxWebhookEnabledEvents+1)},
			create: badEvents, update: badEvents},
	} {
		for _, op := range []struct {
			name string
			want refusal
			call func(s *endpoints.Service, in kassa.WebhookEndpointInput) error
		}{
			{"create", tc.create, func(s *endpoints.Service, in kassa.WebhookEndpointInput) error {
				_, err := s.CreateWebhookEndpoint(context.Background(), p, in)
				return err
			}},
			{"update", tc.update, func(s *endpoints.Service, in kassa.WebhookEndpointInput) error {
				_, err := s.UpdateWebhookEndpoint(context.Background(), p, "we_1", in)
				return err
			}},
		} {
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				s := &countedStore{}
				err := op.call(endpoints.Over(s, delivery.Targets{}), tc.in)
				if op.want == (refusal{}) {
					wantCode(t, err, "")
					if got := fmt.Sprint(s.got.EnabledEvents); got != tc.wantEvents {
						t.Errorf("store given events %s, want %s", got, tc.wantEvents)
					}
					return
				}
				wantRefused(t, err, op.want.code, op.want.param)
				if s.called {
					t.Error("a refused input reached the store")
				}
			})
		}
	}
}

// wantRefused fails t unless err is the invalid request error of code on param.
func wantRefused(t *testing.T, err error, code, param string) {
	t.Helper()
	var e *kassa.Error
	if !errors.As(err, &e) || e.Kind != kassa.KindInvalid || e.Code != code || e.Param != param {
		t.Fatalf("got %v, want invalid %s on %s", err, code, param)
	}
}

// TestPrivateTargets: an endpoint at a loopback or private address is refused
// at create and update in both environments unless the service has private
// targets allowed (serve --webhook-allow-private); then a devnet endpoint may
// reach them, plain http to loopback too, and a mainnet one still may not;
// link-local never.
func TestPrivateTargets(t *testing.T) {
	private := []string{"http://127.0.0.1:8080/hook", "https://127.0.0.1/hook", "https://10.1.2.3/hook",
		"https://[::1]:8443/hook", "https://localhost/hook", "http://localhost:9000/hook"}
	never := []string{"https://169.254.169.254/", "https://[fe80::1]/"}
	mainnetOnly := []string{"https://10.0.0.5/", "https://100.64.0.1/"}
	type row struct {
		allow bool
		env   kassa.Environment
		urls  []string
		ok    bool
	}
	rows := []row{
		{allow: false, env: kassa.Devnet, urls: append(private, never...)},
		{allow: false, env: kassa.Mainnet, urls: append(append(private, never...), mainnetOnly...)},
		{allow: true, env: kassa.Devnet, urls: private, ok: true},
		{allow: true, env: kassa.Devnet, urls: never},
		{allow: true, env: kassa.Mainnet, urls: append(append(private, never...), mainnetOnly...)},
		{allow: false, env: kassa.Devnet, urls: []string{"https://example.com/hook", "https://93.184.215.14/hook"}, ok: true},
		{allow: true, env: kassa.Mainnet, urls: []string{"https://example.com/hook", "https://93.184.215.14/hook"}, ok: true},
	}
	for _, r := range rows {
		p := kassa.Principal{MerchantID: 7, Environment: r.env}
		for _, u := range r.urls {
			t.Run(fmt.Sprintf("allow=%v/%s/%s", r.allow, r.env, u), func(t *testing.T) {
				s := &countedStore{}
				svc := endpoints.Over(s, delivery.Targets{AllowPrivate: r.allow})
				_, errCreate := svc.CreateWebhookEndpoint(context.Background(), p, kassa.WebhookEndpointInput{URL: &u, EnabledEvents: []string{"*"}})
				_, errUpdate := svc.UpdateWebhookEndpoint(context.Background(), p, "we_1", kassa.WebhookEndpointInput{URL: &u})
				for _, err := range []error{errCreate, errUpdate} {
					if r.ok {
						wantCode(t, err, "")
					} else {
						wantRefused(t, err, "private_url_not_allowed", "url")
					}
				}
				if s.called != r.ok {
					t.Errorf("store called: %v, want %v", s.called, r.ok)
				}
			})
		}
	}
}
