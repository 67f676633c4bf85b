package kassa

import (
	"encoding/json"
	"testing"
	"time"
)

var jsonCreated = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// minimalInvoice is an invoice with only what creation requires.
func minimalInvoice() *Invoice {
	return &Invoice{
		ID: "123e4567-e89b-42d3-a456-426614174000", MerchantID: 7, Environment: Devnet,
		Status: StatusUnpaid, Type: InvoiceTypeStandard, Currency: "usd", Amount: 12340,
		InvoiceTitle: "Shop", InvoiceFooter: "Shop",
		ExpiresAt: jsonCreated.Add(12 * time.Hour), CreatedAt: jsonCreated,
	}
}

// fields decodes a JSON object into its raw members.
func fields(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

// wantMember checks the raw JSON of one member.
func wantMember(t *testing.T, m map[string]json.RawMessage, key, want string) {
	t.Helper()
	got, ok := m[key]
	if !ok {
		t.Errorf("member %q missing", key)
		return
	}
	if string(got) != want {
		t.Errorf("%s = %s, want %s", key, got, want)
	}
}

// TestInvoiceRefusesJSON: an invoice is never encoded by its Go fields.
func TestInvoiceRefusesJSON(t *testing.T) {
	for _, v := range []any{minimalInvoice(), *minimalInvoice(), struct{ I *Invoice }{minimalInvoice()}} {
		if b, err := MarshalJSON(v); err == nil {
			t.Errorf("MarshalJSON(%T) = %s", v, b)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	return b
}
