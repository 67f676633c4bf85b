package endpoints_test

import (
	"context"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/endpoints"
)

// countedStore is a store holding one merchant's endpoints: its writes ask the
// service's decision as the real store does, and write only when allowed.
type countedStore struct {
	endpoints.Store // the rest, unused here
	held            int
	ep              kassa.WebhookEndpoint
	wrote           bool
}

func (s *countedStore) CreateWebhookEndpoint(_ context.Context, p kassa.Principal, _ kassa.WebhookEndpointInput,
	decide func(int) error) (*kassa.WebhookEndpoint, error) {
	if err := decide(s.held); err != nil {
		return nil, err
	}
	s.wrote = true
	return &kassa.WebhookEndpoint{ID: "we_new", MerchantID: p.MerchantID, Status: kassa.EndpointEnabled}, nil
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

// wantCode fails t unless err is the error of code ("": none).
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
			_, err := endpoints.Over(s).CreateWebhookEndpoint(context.Background(), p, kassa.WebhookEndpointInput{})
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
			_, err := endpoints.Over(s).ResendEvent(context.Background(), p, "evt", tc.endpoint)
			wantCode(t, err, tc.code)
			if s.wrote != (tc.code == "") {
				t.Errorf("store queued the resend: %v, want %v", s.wrote, tc.code == "")
			}
		})
	}
}
