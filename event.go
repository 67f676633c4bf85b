package kassa

import (
	"encoding/json"
	"strings"
	"time"
)

// APIVersion is the version stamped on every event.
const APIVersion = "2026-11-01"

// Event types written so far; the list grows with payments and commerce.
const (
	EventInvoiceCreated  = "invoice.created"
	EventInvoiceUpdated  = "invoice.updated"
	EventInvoiceCanceled = "invoice.canceled"
	EventInvoiceExpired  = "invoice.expired"
	EventInvoicePaid     = "invoice.paid"
)

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
}

// NewEventID returns "evt_" and 32 hex digits: the time in milliseconds, then 80
// random bits, so ids sort by creation like the events themselves.
func NewEventID(now time.Time) string {
	return "evt_" + strings.ReplaceAll(NewTimeUUID(now), "-", "")
}

// NewEvent returns an event of type typ about object, created at now.
func NewEvent(merchantID int64, env Environment, typ string, object any, now time.Time) (*Event, error) {
	data, err := MarshalJSON(object)
	if err != nil {
		return nil, err
	}
	return &Event{ID: NewEventID(now), MerchantID: merchantID, Environment: env, Type: typ, Created: now, Data: data}, nil
}

// MarshalJSON renders the event as the API shows it, for an Event value or pointer.
func (e Event) MarshalJSON() ([]byte, error) {
	return MarshalJSON(struct {
		ID         string `json:"id"`
		Object     string `json:"object"`
		APIVersion string `json:"api_version"`
		Type       string `json:"type"`
		Created    int64  `json:"created"`
		Data       struct {
			Object json.RawMessage `json:"object"`
		} `json:"data"`
	}{e.ID, "event", APIVersion, e.Type, e.Created.Unix(), struct {
		Object json.RawMessage `json:"object"`
	}{e.Data}})
}
