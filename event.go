package kassa

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// APIVersion is the version stamped on every event.
const APIVersion = "2026-11-01"

// Event types of invoices; those of payments are in payment.go.
const (
	EventInvoiceCreated  = "invoice.created"
	EventInvoiceUpdated  = "invoice.updated"
	EventInvoiceCanceled = "invoice.canceled"
	EventInvoiceExpired  = "invoice.expired"
	EventInvoicePaid     = "invoice.paid"
)

// Event types of commerce orders and webhook endpoints.
const (
	EventOrderCreated            = "commerce.order.created"
	EventOrderUpdated            = "commerce.order.updated"
	EventWebhookEndpointDisabled = "webhook_endpoint.disabled"
)

// EventTypes lists every event type Kassa writes; filters and webhook endpoints
// accept these and their family wildcards ("invoice.*").
var EventTypes = []string{
	EventInvoiceCreated, EventInvoiceUpdated, EventInvoicePaid, EventInvoiceExpired, EventInvoiceCanceled,
	EventInvoicePaidAfterExpired, EventPaymentCreated, EventPaymentUpdated,
	EventOrderCreated, EventOrderUpdated, EventWebhookEndpointDisabled, EventRefundCreated, EventRefundUpdated,
}

// EventRetention is how long events are kept before the pruner deletes them.
const EventRetention = 30 * 24 * time.Hour

// Event records one change. It is written in the same transaction as the change it
// describes (an outbox), so there is no change without its event and no event
// without its change. Data is the full canonical object after the change.
type Event struct {
	ID          string
	MerchantID  int64
	Environment Environment
	Type        string
	Created     time.Time
	Data        json.RawMessage // the object, e.g. an invoice in its canonical JSON
	Pos         FeedPos         // place in the store's feed; zero until stored

	encoded []byte // the API JSON once Encode has rendered it
}

// FeedPos orders committed events for streaming: every event committed later than
// one read at position p gets a position after p, so a reader that remembers the
// last position it saw misses nothing and sees nothing twice. Tx is 0 on engines
// whose commit order is the insert order.
type FeedPos struct {
	Tx  int64
	Seq int64
}

// After reports whether p comes after q in the feed.
func (p FeedPos) After(q FeedPos) bool {
	return p.Tx > q.Tx || (p.Tx == q.Tx && p.Seq > q.Seq)
}

// NewEventID returns "evt_" and 32 hex digits: the time in milliseconds, then 80
// random bits, so ids sort by creation like the events themselves.
func NewEventID(now time.Time) string {
	return "evt_" + strings.ReplaceAll(NewTimeUUID(now), "-", "")
}

// ValidEventID reports whether s has the form of an event id.
func ValidEventID(s string) bool {
	hex, ok := strings.CutPrefix(s, "evt_")
	if !ok || len(hex) != 32 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if !isHex(hex[i]) {
			return false
		}
	}
	return true
}

// NewEvent returns an event of type typ created at now; data is the object after
// the change in its canonical JSON (internal/invoicejson.EventData renders it).
func NewEvent(merchantID int64, env Environment, typ string, data json.RawMessage, now time.Time) *Event {
	return &Event{ID: NewEventID(now), MerchantID: merchantID, Environment: env, Type: typ, Created: now, Data: data}
}

// eventJSON is an event as the API, streams and webhooks show it.
type eventJSON struct {
	ID         string    `json:"id"`
	Object     string    `json:"object"`
	APIVersion string    `json:"api_version"`
	Type       string    `json:"type"`
	Created    int64     `json:"created"` // Unix seconds
	Data       eventData `json:"data"`
}

// eventData holds an event's object.
type eventData struct {
	Object json.RawMessage `json:"object"`
}

// MarshalJSON renders the event as the API shows it, for an Event value or
// pointer: {"id", "object": "event", "api_version", "type", "created" (Unix
// seconds), "data": {"object": Data}}, Data compacted (nil Data is null).
func (e Event) MarshalJSON() ([]byte, error) {
	return MarshalJSON(eventJSON{ID: e.ID, Object: "event", APIVersion: APIVersion, Type: e.Type,
		Created: e.Created.Unix(), Data: eventData{Object: e.Data}})
}

// EventScope is the key scope that sees events of type typ: commerce keys see
// "commerce.*" events, merchant keys everything else.
func EventScope(typ string) Scope {
	if strings.HasPrefix(typ, "commerce.") {
		return ScopeCommerce
	}
	return ScopeMerchant
}

// ValidEventPattern reports whether p names event types: "*", a known type, or a
// family wildcard such as "invoice.*" or "commerce.order.*" that matches at least
// one known type.
func ValidEventPattern(p string) bool {
	if p == "*" {
		return true
	}
	for _, t := range EventTypes {
		if MatchEventType(p, t) {
			return true
		}
	}
	return false
}

// MatchEventType reports whether event type typ matches pattern p: "*" matches all,
// "a.*" every type that starts with "a.", anything else only itself.
func MatchEventType(p, typ string) bool {
	if p == "*" {
		return true
	}
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasSuffix(prefix, ".") && strings.HasPrefix(typ, prefix)
	}
	return p == typ
}

// MatchEventTypes reports whether typ matches any of the patterns; no patterns
// match everything.
func MatchEventTypes(patterns []string, typ string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if MatchEventType(p, typ) {
			return true
		}
	}
	return false
}

// EventFilter selects a page of one merchant's events in one environment, as seen by
// one key scope. Types are patterns (MatchEventType).
type EventFilter struct {
	MerchantID    int64
	Environment   Environment
	Scope         Scope
	Types         []string
	ObjectIDs     []string // only the events of these objects (an invoice and its receipts: its timeline); nil all
	CreatedGTE    *time.Time
	CreatedLTE    *time.Time
	StartingAfter string
	EndingBefore  string
	Limit         int
}

// EventService reads the outbox: lists for the events API and the feed that live
// streams follow.
type EventService interface {
	// Events returns a page of events, newest first, and whether more exist in the
	// paging direction. An unknown cursor is invalid_cursor.
	Events(ctx context.Context, f EventFilter) ([]*Event, bool, error)
	// Event returns one event the merchant may see in env with scope, or not found.
	Event(ctx context.Context, merchantID int64, env Environment, scope Scope, id string) (*Event, error)
	// FeedHead returns the position after which newly committed events will appear.
	FeedHead(ctx context.Context) (FeedPos, error)
	// FeedAfter returns up to limit committed events of every merchant after pos,
	// in feed order. Events whose place could still be taken by a transaction in
	// flight are held back until it ends, so the order never changes behind a reader.
	FeedAfter(ctx context.Context, pos FeedPos, limit int) ([]*Event, error)
	// MerchantFeedAfter is FeedAfter for one merchant's events in env seen by scope.
	MerchantFeedAfter(ctx context.Context, merchantID int64, env Environment, scope Scope, pos FeedPos, limit int) ([]*Event, error)
	// PruneEvents deletes events created before before and returns how many.
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
}
