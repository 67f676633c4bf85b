// Package endpoints is the webhook endpoints service: it owns the rules of a
// merchant's endpoints (how many an environment may hold, that an event is
// resent only to an enabled one) over a store that only persists, deciding on
// the rows the store counted or locked in its transaction.
package endpoints

import (
	"context"

	"github.com/kassapay/kassa"
)

// Store keeps webhook endpoints and their delivery log. Its two writes with a
// rule take the service's decision and run it inside their transaction.
type Store interface {
	// CreateWebhookEndpoint checks in, locks the merchant, counts its endpoints
	// in p's environment and asks decide with the count; when decide returns nil
	// it stores a new enabled endpoint with a fresh secret, in one transaction.
	// decide's error is returned as it is, and nothing is written.
	CreateWebhookEndpoint(ctx context.Context, p kassa.Principal, in kassa.WebhookEndpointInput,
		decide func(endpoints int) error) (*kassa.WebhookEndpoint, error)
	// ResendEvent queues the event again for endpointID, read in the transaction
	// and asked to decide (decide's error is returned as it is, nothing queued),
	// or, when endpointID is "", for every enabled endpoint that wants it.
	ResendEvent(ctx context.Context, p kassa.Principal, eventID, endpointID string,
		decide func(ep *kassa.WebhookEndpoint) error) ([]*kassa.WebhookDelivery, error)
	WebhookEndpoints(ctx context.Context, p kassa.Principal) ([]*kassa.WebhookEndpoint, error)
	WebhookEndpoint(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error)
	UpdateWebhookEndpoint(ctx context.Context, p kassa.Principal, id string, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error)
	DeleteWebhookEndpoint(ctx context.Context, p kassa.Principal, id string) error
	RotateWebhookSecret(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error)
	WebhookDeliveries(ctx context.Context, p kassa.Principal, f kassa.DeliveryFilter) ([]*kassa.WebhookDelivery, bool, error)
}

// Service manages a merchant's webhook endpoints (kassa.WebhookService): the
// reads and the other writes are the store's as they are.
type Service struct {
	Store
}

// Over is the service over s.
func Over(s Store) *Service { return &Service{Store: s} }

var _ kassa.WebhookService = (*Service)(nil)

// CreateWebhookEndpoint creates an endpoint in p's environment, deciding on the
// count the store made under its lock (DecideCreate).
func (s *Service) CreateWebhookEndpoint(ctx context.Context, p kassa.Principal, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error) {
	return s.Store.CreateWebhookEndpoint(ctx, p, in, DecideCreate)
}

// ResendEvent queues the event again for one endpoint, which must be enabled
// (DecideResend), or for every enabled endpoint that wants it when endpointID is
// "".
func (s *Service) ResendEvent(ctx context.Context, p kassa.Principal, eventID, endpointID string) ([]*kassa.WebhookDelivery, error) {
	return s.Store.ResendEvent(ctx, p, eventID, endpointID, DecideResend)
}

// DecideCreate is the rule of a new endpoint, given how many the merchant holds
// in its environment: at most kassa.MaxWebhookEndpoints (403
// endpoint_limit_reached).
func DecideCreate(endpoints int) error {
	if endpoints >= kassa.MaxWebhookEndpoints {
		return kassa.Errorf(kassa.KindPermission, "endpoint_limit_reached",
			"A merchant may have at most %d webhook endpoints per environment.", kassa.MaxWebhookEndpoints)
	}
	return nil
}

// DecideResend is the rule of resending an event to one endpoint: it must be
// enabled (409 endpoint_disabled).
func DecideResend(ep *kassa.WebhookEndpoint) error {
	if ep.Status != kassa.EndpointEnabled {
		return kassa.Errorf(kassa.KindConflict, "endpoint_disabled", "Webhook endpoint %s is disabled; enable it first.", ep.ID)
	}
	return nil
}
