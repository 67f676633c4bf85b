package sealed

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// TestResponsesRef: a create response sealed with a reference to its event
// stores the event's id and neither the invoice nor the token in clear, is
// smaller than sealed whole, and opens byte for byte only with that event's very
// data, under the same secret and scope.
func TestResponsesRef(t *testing.T) {
	body, ref := readFixture(t).created()
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: kassa.NewUUID()}
	s := NewResponses([]byte("secret"))
	record := s.SealRef(scope, body, ref)
	if id, ok := RefEventID(record); !ok || id != ref.ID {
		t.Fatalf("RefEventID = %q, %v; want %q", id, ok, ref.ID)
	}
	if whole := s.Seal(scope, body); len(record) >= len(whole) {
		t.Errorf("sealed with a reference: %d bytes, whole: %d", len(record), len(whole))
	}
	if bytes.Contains(record, []byte(`"invoice_id"`)) || bytes.Contains(record, []byte("ps_")) {
		t.Errorf("sealed %q holds the response in clear", record)
	}
	t.Logf("a %d-byte create response, %d of them the event's, sealed to %d bytes (whole: %d)",
		len(body), len(ref.Data), len(record), len(s.Seal(scope, body)))

	changed := bytes.Clone(ref.Data)
	changed[len(changed)/2] ^= 1
	// An amount changed in the event's data, and two bytes after it changed
	// too (as a forger keeping a checksum would): still refused.
	forged := bytes.Replace(bytes.Clone(ref.Data), []byte(`"amount":`), []byte(`"amount":9`), 1)[:len(ref.Data)]
	otherEvent := kassa.NewEventID(time.Now().Add(time.Second))
	repointed := append(append(bytes.Clone(sealMagicRef), otherEvent...), record[len(sealMagicRef)+eventIDLen:]...)
	other := scope
	other.Key = kassa.NewUUID()
	tests := []struct {
		name   string
		sealer *Responses
		scope  kassa.IdempotencyScope
		stored []byte
		ref    []byte
		want   []byte // nil: unreadable
	}{
		{"the event's data", s, scope, record, ref.Data, body},
		{"no data (the event is gone)", s, scope, record, nil, nil},
		{"other data of the same length", s, scope, record, changed, nil},
		{"an altered amount", s, scope, record, forged, nil},
		{"shorter data", s, scope, record, ref.Data[:len(ref.Data)-1], nil},
		{"pointed at another event", s, scope, repointed, ref.Data, nil},
		{"another scope", s, other, record, ref.Data, nil},
		{"another secret", NewResponses([]byte("other")), scope, record, ref.Data, nil},
		{"truncated", s, scope, record[:len(sealMagicRef)+eventIDLen+3], ref.Data, nil},
		{"cut in the id", s, scope, record[:len(sealMagicRef)+10], ref.Data, nil},
		{"altered", s, scope, append(bytes.Clone(record[:len(record)-1]), record[len(record)-1]^1), ref.Data, nil},
	}
	// An instance older than references takes the record for a deflated one
	// (its magic begins so) and cannot open it: 409, never the bytes as a body.
	if !bytes.HasPrefix(record, sealMagicDeflated) {
		t.Fatalf("sealed under %q, not beginning with %q", record[:len(sealMagicRef)], sealMagicDeflated)
	}
	rest := record[len(sealMagicDeflated):]
	if _, err := s.aead.Open(nil, rest[:s.aead.NonceSize()], rest[s.aead.NonceSize():], additionalData(sealMagicDeflated, scope)); err == nil {
		t.Error("a record sealed with a reference opens as a deflated one")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sealer.Open(tt.scope, tt.stored, tt.ref)
			if tt.want == nil {
				if !errors.Is(err, kassa.ErrSavedResponseUnreadable) {
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

// TestResponsesRefFallsBack: a body without the event's data, data too short
// to be worth a reference, or a ref that names no event: sealed whole, and opened
// without data.
func TestResponsesRefFallsBack(t *testing.T) {
	body, ref := readFixture(t).created()
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: kassa.NewUUID()}
	s := NewResponses([]byte("secret"))
	tests := []struct {
		name string
		body []byte
		ref  *kassa.Event
	}{
		{"body without the data", []byte(`{"error":"x"}`), ref},
		{"data too short", body, &kassa.Event{ID: ref.ID, Data: []byte(`"invoice_id"`)}},
		{"no event id", body, &kassa.Event{ID: "evt_x", Data: ref.Data}},
		{"nil body", nil, ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			record := s.SealRef(scope, tt.body, tt.ref)
			if _, ok := RefEventID(record); ok || !bytes.HasPrefix(record, sealMagicDeflated) {
				t.Errorf("sealed %q: not whole", record)
			}
			got, err := s.Open(scope, record, nil)
			if err != nil || !bytes.Equal(got, tt.body) {
				t.Errorf("opened %q, %v", got, err)
			}
		})
	}
}

// TestEventsOutliveIdempotencyKeys: a saved response may refer to its event, so
// events must be kept for longer than a key can be replayed.
func TestEventsOutliveIdempotencyKeys(t *testing.T) {
	if kassa.EventRetention <= kassa.IdempotencyTTL+kassa.IdempotencyStale {
		t.Fatalf("events are kept %v, keys replay for %v", kassa.EventRetention, kassa.IdempotencyTTL)
	}
}
