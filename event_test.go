package kassa

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestMatchEventType(t *testing.T) {
	tests := []struct {
		pattern, typ string
		want         bool
	}{
		{"*", EventInvoiceCreated, true},
		{"*", EventOrderUpdated, true},
		{"*", EventWebhookEndpointDisabled, true},
		{"invoice.created", EventInvoiceCreated, true},
		{"invoice.created", EventInvoiceUpdated, false},
		{"invoice.*", EventInvoiceCreated, true},
		{"invoice.*", EventInvoicePaidAfterExpired, true},
		{"invoice.*", EventPaymentCreated, false}, // invoice_payment.created is another family
		{"invoice_payment.*", EventPaymentCreated, true},
		{"invoice_payment.*", EventInvoiceCreated, false},
		{"commerce.*", EventOrderCreated, true},
		{"commerce.order.*", EventOrderUpdated, true},
		{"commerce.order.*", EventInvoiceUpdated, false},
		{"commerce.*", EventInvoiceCreated, false},
		{"invoice*", EventInvoiceCreated, false}, // a wildcard must follow a dot
		{"inv*", EventInvoiceCreated, false},
		{"invoice.", EventInvoiceCreated, false},
		{"", EventInvoiceCreated, false},
		{"INVOICE.CREATED", EventInvoiceCreated, false},
		{".*", EventInvoiceCreated, false},
	}
	for _, tt := range tests {
		if got := MatchEventType(tt.pattern, tt.typ); got != tt.want {
			t.Errorf("MatchEventType(%q, %q) = %v, want %v", tt.pattern, tt.typ, got, tt.want)
		}
	}
}

func TestValidEventPattern(t *testing.T) {
	tests := []struct {
		pattern string
		want    bool
	}{
		{"*", true},
		{"invoice.*", true},
		{"invoice_payment.*", true},
		{"commerce.*", true},
		{"commerce.order.*", true},
		{"webhook_endpoint.*", true},
		{"invoice.paid_after_expiration", true},
		{"webhook_endpoint.disabled", true},
		{"invoice.", false},
		{"inv*", false},
		{"invoice*", false},
		{"", false},
		{"**", false},
		{"invoice.deleted", false},
		{"customer.*", false},
		{"commerce.order", false},
		{" invoice.created", false},
		{"invoice.created,invoice.paid", false},
	}
	for _, tt := range tests {
		if got := ValidEventPattern(tt.pattern); got != tt.want {
			t.Errorf("ValidEventPattern(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
	for _, typ := range EventTypes {
		if !ValidEventPattern(typ) {
			t.Errorf("known type %q is not a valid pattern", typ)
		}
	}
}

func TestMatchEventTypes(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		typ      string
		want     bool
	}{
		{"no patterns match all", nil, EventOrderCreated, true},
		{"empty list matches all", []string{}, EventInvoicePaid, true},
		{"one exact", []string{EventInvoicePaid}, EventInvoicePaid, true},
		{"second matches", []string{EventInvoicePaid, "commerce.*"}, EventOrderCreated, true},
		{"none matches", []string{EventInvoicePaid, "commerce.*"}, EventPaymentCreated, false},
		{"family does not leak", []string{"invoice.*"}, EventPaymentUpdated, false},
		{"bogus pattern matches nothing", []string{"inv*"}, EventInvoiceCreated, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchEventTypes(tt.patterns, tt.typ); got != tt.want {
				t.Fatalf("MatchEventTypes(%q, %q) = %v, want %v", tt.patterns, tt.typ, got, tt.want)
			}
		})
	}
}

func TestEventScope(t *testing.T) {
	tests := []struct {
		typ  string
		want Scope
	}{
		{EventInvoiceCreated, ScopeMerchant},
		{EventInvoicePaidAfterExpired, ScopeMerchant},
		{EventPaymentUpdated, ScopeMerchant},
		{EventWebhookEndpointDisabled, ScopeMerchant},
		{EventOrderCreated, ScopeCommerce},
		{EventOrderUpdated, ScopeCommerce},
		{"commerce.anything", ScopeCommerce},
		{"commerceorder.created", ScopeMerchant},
	}
	for _, tt := range tests {
		if got := EventScope(tt.typ); got != tt.want {
			t.Errorf("EventScope(%q) = %q, want %q", tt.typ, got, tt.want)
		}
	}
}

func TestValidEventID(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	id := NewEventID(now)
	tests := []struct {
		id   string
		want bool
	}{
		{id, true},
		{"evt_0123456789abcdef0123456789ABCDEF", true},
		{"evt_0123456789abcdef0123456789abcde", false},   // 31 digits
		{"evt_0123456789abcdef0123456789abcdef0", false}, // 33 digits
		{"evt_0123456789abcdef0123456789abcdeg", false},
		{"evt_" + strings.Repeat("0", 28) + "-000", false},
		{"ev_0123456789abcdef0123456789abcdef", false},
		{"EVT_0123456789abcdef0123456789abcdef", false},
		{"0123456789abcdef0123456789abcdef", false},
		{"evt_", false},
		{"", false},
		{"we_0123456789abcdef0123456789abcdef", false},
	}
	for _, tt := range tests {
		if got := ValidEventID(tt.id); got != tt.want {
			t.Errorf("ValidEventID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
	// Ids sort by creation time across milliseconds.
	later := NewEventID(now.Add(time.Millisecond))
	if !(id < later) {
		t.Errorf("NewEventID not time-ordered: %s then %s", id, later)
	}
	if again := NewEventID(now); again == id {
		t.Errorf("NewEventID repeated %s", id)
	}
}

func TestFeedPosAfter(t *testing.T) {
	tests := []struct {
		p, q FeedPos
		want bool
	}{
		{FeedPos{0, 2}, FeedPos{0, 1}, true},
		{FeedPos{0, 1}, FeedPos{0, 1}, false},
		{FeedPos{0, 1}, FeedPos{0, 2}, false},
		{FeedPos{2, 1}, FeedPos{1, 100}, true}, // the transaction orders first
		{FeedPos{1, 100}, FeedPos{2, 1}, false},
		{FeedPos{5, 5}, FeedPos{5, 4}, true},
		{FeedPos{}, FeedPos{}, false},
		{FeedPos{1, 0}, FeedPos{0, math.MaxInt64}, true},
		{FeedPos{0, math.MaxInt64}, FeedPos{1, 0}, false},
	}
	for _, tt := range tests {
		if got := tt.p.After(tt.q); got != tt.want {
			t.Errorf("%+v.After(%+v) = %v, want %v", tt.p, tt.q, got, tt.want)
		}
	}
}

// TestEventDataNotEscaped checks that merchant text inside data.object comes back as
// it was sent (internal/invoicejson's tests cover the rest of the event shape).
func TestEventDataNotEscaped(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 999, time.UTC)
	data, err := MarshalJSON(map[string]any{"id": "inv_1", "note": "<a&b>"})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvent(7, Devnet, EventInvoiceCreated, data, now)
	if !ValidEventID(e.ID) || !e.Created.Equal(now) || e.Pos != (FeedPos{}) {
		t.Fatalf("NewEvent = %+v", e)
	}
	b, err := MarshalJSON(e) // as the API and webhooks render it, without HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	wantMember(t, fields(t, b), "created", "1795348800")
	var parsed struct {
		Data struct {
			Object map[string]string `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Data.Object["id"] != "inv_1" || parsed.Data.Object["note"] != "<a&b>" || !strings.Contains(string(b), "<a&b>") {
		t.Fatalf("event = %s", b)
	}
}
