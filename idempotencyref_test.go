package kassa

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// sampleCreated is a create response and the invoice.created event data it
// holds, as merchantapi and the store make them.
func sampleCreated(t testing.TB) (body []byte, ref ResponseRef) {
	t.Helper()
	inv := minimalInvoice()
	inv.ID, inv.CreatedAt = NewTimeUUID(time.Now()), time.Now()
	desc := "load test"
	inv.Description, inv.Metadata = &desc, []byte(`{"run":"kassa-load"}`)
	token := NewSessionToken(inv.ID)
	sig := NewSessionSigner([]byte("test secret")).Sign(token)
	data := invoiceJSON(t, inv)
	b, err := MarshalJSON(struct {
		InvoiceID    string          `json:"invoice_id"`
		SessionToken string          `json:"session_token"`
		Signature    string          `json:"signature"`
		Invoice      json.RawMessage `json:"invoice"`
	}{inv.ID, token, sig, data})
	if err != nil {
		t.Fatal(err)
	}
	ev := NewEvent(1, Devnet, EventInvoiceCreated, data, inv.CreatedAt)
	if !bytes.Contains(b, ev.Data) {
		t.Fatalf("the response %s does not hold the event's data %s", b, ev.Data)
	}
	return append(b, '\n'), ResponseRef{EventID: ev.ID, Data: ev.Data}
}

// TestResponseSealerRef: a create response sealed with a reference to its event
// stores the event's id and neither the invoice nor the token in clear, is
// smaller than sealed whole, and opens byte for byte only with that event's very
// data, under the same secret and scope.
func TestResponseSealerRef(t *testing.T) {
	body, ref := sampleCreated(t)
	scope := IdempotencyScope{MerchantID: 7, Environment: Devnet, Route: "POST /api/v1/invoices", Key: NewUUID()}
	s := NewResponseSealer([]byte("secret"))
	sealed := s.SealRef(scope, body, ref)
	if id, ok := SealedRef(sealed); !ok || id != ref.EventID {
		t.Fatalf("SealedRef = %q, %v; want %q", id, ok, ref.EventID)
	}
	if whole := s.Seal(scope, body); len(sealed) >= len(whole) {
		t.Errorf("sealed with a reference: %d bytes, whole: %d", len(sealed), len(whole))
	}
	if bytes.Contains(sealed, []byte(`"invoice_id"`)) || bytes.Contains(sealed, []byte("ps_")) {
		t.Errorf("sealed %q holds the response in clear", sealed)
	}
	t.Logf("a %d-byte create response, %d of them the event's, sealed to %d bytes (whole: %d)",
		len(body), len(ref.Data), len(sealed), len(s.Seal(scope, body)))

	changed := bytes.Clone(ref.Data)
	changed[len(changed)/2] ^= 1
	// An amount changed in the event's data, and two bytes after it changed
	// too (as a forger keeping a checksum would): still refused.
	forged := bytes.Replace(bytes.Clone(ref.Data), []byte(`"amount":`), []byte(`"amount":9`), 1)[:len(ref.Data)]
	otherEvent := NewEventID(time.Now().Add(time.Second))
	repointed := append(append(bytes.Clone(sealMagicRef), otherEvent...), sealed[len(sealMagicRef)+eventIDLen:]...)
	other := scope
	other.Key = NewUUID()
	tests := []struct {
		name   string
		sealer *ResponseSealer
		scope  IdempotencyScope
		stored []byte
		ref    []byte
		want   []byte // nil: unreadable
	}{
		{"the event's data", s, scope, sealed, ref.Data, body},
		{"no data (the event is gone)", s, scope, sealed, nil, nil},
		{"other data of the same length", s, scope, sealed, changed, nil},
		{"an altered amount", s, scope, sealed, forged, nil},
		{"shorter data", s, scope, sealed, ref.Data[:len(ref.Data)-1], nil},
		{"pointed at another event", s, scope, repointed, ref.Data, nil},
		{"another scope", s, other, sealed, ref.Data, nil},
		{"another secret", NewResponseSealer([]byte("other")), scope, sealed, ref.Data, nil},
		{"truncated", s, scope, sealed[:len(sealMagicRef)+eventIDLen+3], ref.Data, nil},
		{"cut in the id", s, scope, sealed[:len(sealMagicRef)+10], ref.Data, nil},
		{"altered", s, scope, append(bytes.Clone(sealed[:len(sealed)-1]), sealed[len(sealed)-1]^1), ref.Data, nil},
	}
	// An instance older than references takes the record for a deflated one
	// (its magic begins so) and cannot open it: 409, never the bytes as a body.
	if !bytes.HasPrefix(sealed, sealMagicDeflated) {
		t.Fatalf("sealed under %q, not beginning with %q", sealed[:len(sealMagicRef)], sealMagicDeflated)
	}
	rest := sealed[len(sealMagicDeflated):]
	if _, err := s.aead.Open(nil, rest[:s.aead.NonceSize()], rest[s.aead.NonceSize():], additionalData(sealMagicDeflated, scope)); err == nil {
		t.Error("a record sealed with a reference opens as a deflated one")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sealer.Open(tt.scope, tt.stored, tt.ref)
			if tt.want == nil {
				if !errors.Is(err, ErrSavedResponseUnreadable) {
					t.Errorf("opened %q, %v", got, err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}

// TestResponseSealerRefFallsBack: a body without the event's data, data too short
// to be worth a reference, or a ref that names no event: sealed whole, and opened
// without data.
func TestResponseSealerRefFallsBack(t *testing.T) {
	body, ref := sampleCreated(t)
	scope := IdempotencyScope{MerchantID: 7, Environment: Devnet, Route: "POST /api/v1/invoices", Key: NewUUID()}
	s := NewResponseSealer([]byte("secret"))
	tests := []struct {
		name string
		body []byte
		ref  ResponseRef
	}{
		{"body without the data", []byte(`{"error":"x"}`), ref},
		{"data too short", body, ResponseRef{EventID: ref.EventID, Data: []byte(`"invoice_id"`)}},
		{"no event id", body, ResponseRef{EventID: "evt_x", Data: ref.Data}},
		{"nil body", nil, ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sealed := s.SealRef(scope, tt.body, tt.ref)
			if _, ok := SealedRef(sealed); ok || !bytes.HasPrefix(sealed, sealMagicDeflated) {
				t.Errorf("sealed %q: not whole", sealed)
			}
			got, err := s.Open(scope, sealed, nil)
			if err != nil || !bytes.Equal(got, tt.body) {
				t.Errorf("opened %q, %v", got, err)
			}
		})
	}
}

// TestEventsOutliveIdempotencyKeys: a saved response may refer to its event, so
// events must be kept for longer than a key can be replayed.
func TestEventsOutliveIdempotencyKeys(t *testing.T) {
	if EventRetention <= IdempotencyTTL+IdempotencyStale {
		t.Fatalf("events are kept %v, keys replay for %v", EventRetention, IdempotencyTTL)
	}
}
