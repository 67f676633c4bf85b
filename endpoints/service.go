// Package endpoints is the webhook endpoints service: it owns the rules of a
// merchant's endpoints (their input and where their url may point, how many an
// environment may hold, that an event is resent only to an enabled one) over a
// store that only persists, deciding on the rows the store counted or locked in
// its transaction.
package endpoints

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// Store keeps webhook endpoints and their delivery log. Its two writes with a
// rule take the service's decision and run it inside their transaction.
type Store interface {
	// CreateWebhookEndpoint locks the merchant, counts its endpoints in p's
	// environment and asks decide with the count; when decide returns nil it
	// stores a new enabled endpoint of in with a fresh secret, in one
	// transaction. decide's error is returned as it is, and nothing is written.
	// in has passed kassa.WebhookEndpointInput.Validate for a create (the
	// service checks it): its url and enabled_events are set.
	CreateWebhookEndpoint(ctx context.Context, p kassa.Principal, in kassa.WebhookEndpointInput,
		decide func(endpoints int) error) (*kassa.WebhookEndpoint, error)
	// ResendEvent queues the event again for endpointID, read in the transaction
	// and asked to decide (decide's error is returned as it is, nothing queued),
	// or, when endpointID is "", for every enabled endpoint that wants it.
	ResendEvent(ctx context.Context, p kassa.Principal, eventID, endpointID string,
		decide func(ep *kassa.WebhookEndpoint) error) ([]*kassa.WebhookDelivery, error)
	WebhookEndpoints(ctx context.Context, p kassa.Principal) ([]*kassa.WebhookEndpoint, error)
	WebhookEndpoint(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error)
	// UpdateWebhookEndpoint writes in's set fields on the endpoint; in has passed
	// kassa.WebhookEndpointInput.Validate for an update (the service checks it).
	UpdateWebhookEndpoint(ctx context.Context, p kassa.Principal, id string, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error)
	DeleteWebhookEndpoint(ctx context.Context, p kassa.Principal, id string) error
	RotateWebhookSecret(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error)
	WebhookDeliveries(ctx context.Context, p kassa.Principal, f kassa.DeliveryFilter) ([]*kassa.WebhookDelivery, bool, error)
}

// Service manages a merchant's webhook endpoints (kassa.WebhookService): the
// reads and the other writes are the store's as they are.
type Service struct {
	Store
	// Targets is the operator's rule on where an endpoint's url may point
	// (serve --webhook-allow-private); the zero value allows public addresses
	// only.
	Targets delivery.Targets
}

// Over is the service over s, its endpoints' urls checked with t.
func Over(s Store, t delivery.Targets) *Service { return &Service{Store: s, Targets: t} }

var _ kassa.WebhookService = (*Service)(nil)

// CreateWebhookEndpoint checks in for an endpoint in p's environment (Check)
// and creates it, deciding on the count the store made under its lock
// (DecideCreate); a refused in reaches no store.
func (s *Service) CreateWebhookEndpoint(ctx context.Context, p kassa.Principal, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error) {
	if err := s.Check(p.Environment, &in, true); err != nil {
		return nil, err
	}
	return s.Store.CreateWebhookEndpoint(ctx, p, in, DecideCreate)
}

// UpdateWebhookEndpoint checks in's set fields (Check) and writes them on the
// endpoint id; a refused in reaches no store.
func (s *Service) UpdateWebhookEndpoint(ctx context.Context, p kassa.Principal, id string, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error) {
	if err := s.Check(p.Environment, &in, false); err != nil {
		return nil, err
	}
	return s.Store.UpdateWebhookEndpoint(ctx, p, id, in)
}

// Check is kassa.WebhookEndpointInput.Validate for an endpoint in env with the
// url rule of s.Targets (delivery.Targets.ValidateURL): create says whether url
// and enabled_events are required. It drops repeated enabled_events from in.
func (s *Service) Check(env kassa.Environment, in *kassa.WebhookEndpointInput, create bool) error {
	return in.Validate(env, create, s.Targets.ValidateURL)
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
