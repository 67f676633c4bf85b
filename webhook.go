package kassa

import (
	"context"
	"net"
	"net/url"
	"strings"
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

// Validate checks the input for an endpoint in env; create says whether url and
// enabled_events are required.
func (in *WebhookEndpointInput) Validate(env Environment, create bool) error {
	switch {
	case in.URL == nil && create:
		return Invalidf("url", "missing_param", "url is required.")
	case in.URL != nil:
		if err := ValidateWebhookURL(*in.URL, env); err != nil {
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

// ValidateWebhookURL checks a webhook URL for env: absolute, HTTPS (plain HTTP only
// to a loopback host on devnet), no fragment, at most MaxWebhookURLLength bytes. On
// mainnet a host that is or names a private, loopback or link-local address is
// refused; the sender checks the resolved address again on every delivery.
func ValidateWebhookURL(raw string, env Environment) error {
	bad := func(format string, args ...any) error {
		return Invalidf("url", "invalid_url", format, args...)
	}
	if len(raw) > MaxWebhookURLLength {
		return bad("url must be at most %d characters.", MaxWebhookURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return bad("url must be an absolute http(s) URL.")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return bad("url must not have a fragment.")
	}
	host := u.Hostname()
	loopback := IsLoopbackHost(host)
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback && env == Devnet:
	case u.Scheme == "http" && loopback:
		return bad("Plain http is allowed only for loopback URLs on devnet.")
	case u.Scheme == "http":
		return bad("url must use https (plain http only for loopback URLs on devnet).")
	default:
		return bad("url must use https.")
	}
	if env == Devnet {
		return nil
	}
	if loopback {
		return bad("Mainnet webhooks cannot target loopback addresses.")
	}
	// An IPv6 zone ("fe80::1%eth0") hides the address from net.ParseIP.
	addr, _, _ := strings.Cut(host, "%")
	if ip := net.ParseIP(addr); ip != nil && !PublicIP(ip) {
		return bad("Mainnet webhooks cannot target private, loopback or link-local addresses.")
	}
	return nil
}

// IsLoopbackHost reports whether host is "localhost" (or a name under it) or a
// loopback IP address.
func IsLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// PublicIP reports whether ip is a globally routable unicast address: not loopback,
// private (RFC 1918, IPv6 ULA), link-local, unspecified, multicast, carrier-grade
// NAT (100.64.0.0/10), reserved (240.0.0.0/4), or an IPv4-mapped, NAT64 or 6to4 form
// of those.
func PublicIP(ip net.IP) bool {
	if len(ip) == net.IPv6len && ip.To4() == nil {
		// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address inside.
		switch {
		case ip[0] == 0 && ip[1] == 0x64 && ip[2] == 0xff && ip[3] == 0x9b && allZero(ip[4:12]):
			return PublicIP(net.IP(ip[12:16]))
		case ip[0] == 0x20 && ip[1] == 0x02:
			return PublicIP(net.IP(ip[2:6]))
		}
	}
	if v4 := ip.To4(); v4 != nil {
		ip = v4
		if v4[0] == 0 || (v4[0] == 100 && v4[1]&0xc0 == 64) || v4[0] >= 240 {
			return false
		}
	}
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified())
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

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
