package sealed

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/kassapay/kassa"
)

// responseFixture is testdata/responses.json: a create response, the
// invoice.created event data it holds, and records of each stored format sealed
// by the code that wrote them (under Secret and the scope below), before this
// package held it. Stored records must keep opening, byte for byte.
type responseFixture struct {
	Secret      string `json:"secret"`
	MerchantID  int64  `json:"merchant_id"`
	Environment string `json:"environment"`
	Route       string `json:"route"`
	Key         string `json:"key"`
	Body        []byte `json:"body"`       // a POST /api/v1/invoices response
	EventID     string `json:"event_id"`   // its invoice.created event
	EventData   []byte `json:"event_data"` // the event's data, held in Body
	// CreateResponse is a create response with payment_url and the session
	// headers, as merchantapi renders it; SealedV2Create, it sealed deflated.
	CreateResponse []byte `json:"create_response"`
	SealedV2Create []byte `json:"sealed_v2_create"`
	SmallBody      []byte `json:"small_body"`
	SealedV1       []byte `json:"sealed_v1"`     // SmallBody sealed before deflating ("\x00ks1")
	SealedV2       []byte `json:"sealed_v2"`     // Body sealed deflated ("\x00ks2")
	SealedV2Ref    []byte `json:"sealed_v2_ref"` // Body sealed by reference to the event ("\x00ks2\xffref")
}

// readFixture reads testdata/responses.json.
func readFixture(t testing.TB) *responseFixture {
	t.Helper()
	b, err := os.ReadFile("testdata/responses.json")
	if err != nil {
		t.Fatal(err)
	}
	var f responseFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(f.Body, f.EventData) {
		t.Fatalf("the response %s does not hold the event's data %s", f.Body, f.EventData)
	}
	return &f
}

// scope is the key the fixture's records were sealed under.
func (f *responseFixture) scope() kassa.IdempotencyScope {
	return kassa.IdempotencyScope{MerchantID: f.MerchantID, Environment: kassa.Environment(f.Environment), Route: f.Route, Key: f.Key}
}

// created returns the create response and the reference to its event.
func (f *responseFixture) created() ([]byte, *kassa.Event) {
	return f.Body, &kassa.Event{ID: f.EventID, Data: f.EventData}
}

// TestResponsesOpenStoredRecords: records sealed in each stored format by the code
// before (testdata/responses.json) open byte for byte, and only with their
// secret, scope and event data.
func TestResponsesOpenStoredRecords(t *testing.T) {
	f := readFixture(t)
	s := NewResponses([]byte(f.Secret))
	other := f.scope()
	other.Key += "x"
	tests := []struct {
		name   string
		sealer *Responses
		scope  kassa.IdempotencyScope
		stored []byte
		ref    []byte
		want   []byte // nil: unreadable
	}{
		{"sealed before deflating", s, f.scope(), f.SealedV1, nil, f.SmallBody},
		{"deflated", s, f.scope(), f.SealedV2, nil, f.Body},
		{"deflated create response", s, f.scope(), f.SealedV2Create, nil, f.CreateResponse},
		{"by reference", s, f.scope(), f.SealedV2Ref, f.EventData, f.Body},
		{"by reference, without the event", s, f.scope(), f.SealedV2Ref, nil, nil},
		{"deflated, another scope", s, other, f.SealedV2, nil, nil},
		{"by reference, another secret", NewResponses([]byte("other")), f.scope(), f.SealedV2Ref, f.EventData, nil},
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
	if id, ok := RefEventID(f.SealedV2Ref); !ok || id != f.EventID {
		t.Errorf("RefEventID = %q, %v; want %q", id, ok, f.EventID)
	}
	if _, ok := RefEventID(f.SealedV2); ok {
		t.Error("a deflated record names an event")
	}
}
