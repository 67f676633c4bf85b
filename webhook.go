package kassa

import (
	"context"
	"time"
	"unicode/utf8"
)

// Webhook endpoint statuses.
const (
	EndpointEnabled  = "enabled"
	EndpointDisabled = "disabled"
)

// Reasons an endpoint was disabled, shown as disabled_reason.
const (
	DisabledByMerchant = "disabled_by_merchant" // PATCH with disabled: true
	DisabledGone       = "endpoint_gone"        // the endpoint answered 410 Gone
	DisabledFailing    = "failing"              // every delivery failed for WebhookFailingLimit
)

// WebhookEndpoint is a URL a merchant wants one environment's events posted to.
type WebhookEndpoint struct {
	ID             string // "we_" + random
	MerchantID     int64
	Environment    Environment
	URL            string
	Description    string
	EnabledEvents  []string // patterns; ["*"] for all
	Status         string
	DisabledReason *string
	// Secret signs deliveries; PreviousSecret also signs them until
	// PreviousSecretUntil, so receivers can switch after a rotation.
	Secret              string
	PreviousSecret      string
	PreviousSecretUntil *time.Time
	// FailingSince is when the run of failed attempts began; nil after a success.
	FailingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// SigningSecrets returns the secrets that sign a delivery made at now: the current
// one, then the previous one while its rotation grace lasts.
func (e *WebhookEndpoint) SigningSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// Wants reports whether the endpoint is enabled and subscribed to events of type typ.
func (e *WebhookEndpoint) Wants(typ string) bool {
	return e.Status == EndpointEnabled && MatchEventTypes(e.EnabledEvents, typ)
}

// WebhookEndpointInput is a create or update request. On update, nil fields keep
// their value.
type WebhookEndpointInput struct {
	URL           *string
	Description   *string
	EnabledEvents []string // nil: unchanged on update, required on create
	Disabled      *bool    // update only
}

// Limits of webhook endpoints.
const (
	MaxWebhookURLLength     = 2048
	MaxWebhookEndpoints     = 16 // per merchant and environment
	MaxWebhookEnabledEvents = 64
)

// Validate checks the input for an endpoint in env, its url with validURL (the
// operator's rule on where webhooks may go, delivery.Targets.ValidateURL);
// create says whether url and enabled_events are required.
func (in *WebhookEndpointInput) Validate(env Environment, create bool, validURL func(raw string, env Environment) error) error {
	switch {
	case in.URL == nil && create:
		return Invalidf("url", "missing_param", "url is required.")
	case in.URL != nil:
		if err := validURL(*in.URL, env); err != nil {
			return err
		}
	}
	if in.Description != nil {
		d := *in.Description
		if !utf8.ValidString(d) || utf8.RuneCountInString(d) > 255 || hasControl(d) {
			return Invalidf("description", "invalid_description", "description must be at most 255 characters of text.")
		}
	}
	switch {
	case in.EnabledEvents == nil && create:
		return Invalidf("enabled_events", "missing_param", "enabled_events is required: a list of event types, or [\"*\"].")
	case in.EnabledEvents != nil:
		if len(in.EnabledEvents) == 0 || len(in.EnabledEvents) > MaxWebhookEnabledEvents {
			return Invalidf("enabled_events", "invalid_enabled_events", "enabled_events must list 1 to 64 event types.")
		}
		seen := map[string]bool{}
		out := in.EnabledEvents[:0:0]
		for _, p := range in.EnabledEvents {
			if !ValidEventPattern(p) {
				return Invalidf("enabled_events", "invalid_enabled_events", "%q is not an event type or a family wildcard such as invoice.*.", p)
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		in.EnabledEvents = out
	}
	return nil
}

// WebhookService manages a merchant's webhook endpoints and reads their delivery log.
type WebhookService interface {
	CreateWebhookEndpoint(ctx context.Context, p Principal, in WebhookEndpointInput) (*WebhookEndpoint, error)
	WebhookEndpoints(ctx context.Context, p Principal) ([]*WebhookEndpoint, error)
	WebhookEndpoint(ctx context.Context, p Principal, id string) (*WebhookEndpoint, error)
	UpdateWebhookEndpoint(ctx context.Context, p Principal, id string, in WebhookEndpointInput) (*WebhookEndpoint, error)
	DeleteWebhookEndpoint(ctx context.Context, p Principal, id string) error
	// RotateWebhookSecret gives the endpoint a new secret; the old one keeps signing
	// for WebhookSecretGrace.
	RotateWebhookSecret(ctx context.Context, p Principal, id string) (*WebhookEndpoint, error)
	// WebhookDeliveries lists the endpoint's deliveries, newest first, with their
	// attempts.
	WebhookDeliveries(ctx context.Context, p Principal, f DeliveryFilter) ([]*WebhookDelivery, bool, error)
	// ResendEvent queues the event again for one endpoint, or for every enabled
	// endpoint that wants it when endpointID is "".
	ResendEvent(ctx context.Context, p Principal, eventID, endpointID string) ([]*WebhookDelivery, error)
}

// DeliveryFilter selects a page of one endpoint's deliveries.
type DeliveryFilter struct {
	EndpointID    string
	EventID       string
	Status        string
	StartingAfter string
	EndingBefore  string
	Limit         int
}
