package sealed

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kassapay/kassa"
)

// TestResponses: a sealed response opens only under the same secret and the
// same scope; a clear (pre-sealing) body opens as it is; anything else is
// kassa.ErrSavedResponseUnreadable.
func TestResponses(t *testing.T) {
	body := []byte(`{"session_token":"ps_x","signature":"ab"}` + "\n")
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: "k", Owner: "o1"}
	s := NewResponses([]byte("secret"))
	record := s.Seal(scope, body)
	if bytes.Contains(record, []byte("ps_x")) || bytes.Equal(record, s.Seal(scope, body)) {
		t.Fatalf("sealed %q: clear, or the same twice", record)
	}
	// Sealed before responses were deflated: the plaintext is the body.
	sealedV1 := sealRaw(s, sealMagic, scope, body)
	// Sealed and authentic, but its plaintext is no Deflate frame.
	badFrame := sealRaw(s, sealMagicDeflated, scope, []byte("\x01\x05not deflate"))
	other := scope
	other.MerchantID = 8
	takenOver := scope
	takenOver.Owner = "o2"
	tests := []struct {
		name   string
		sealer *Responses
		scope  kassa.IdempotencyScope
		stored []byte
		want   []byte // nil: unreadable
	}{
		{"same secret and scope", s, scope, record, body},
		{"claim taken over (owner is not scope)", s, takenOver, record, body},
		{"clear row from before sealing", s, scope, body, body},
		{"sealed before deflating", s, scope, sealedV1, body},
		{"deflated, relabelled with the old magic", s, scope, append(bytes.Clone(sealMagic), record[len(sealMagic):]...), nil},
		{"old, relabelled with the new magic", s, scope, append(bytes.Clone(sealMagicDeflated), sealedV1[len(sealMagic):]...), nil},
		{"sealed frame that does not inflate", s, scope, badFrame, nil},
		{"a format newer than this build", s, scope, append([]byte("\x00ks9"), record[len(sealMagic):]...), nil},
		{"another scope", s, other, record, nil},
		{"another secret", NewResponses([]byte("other")), scope, record, nil},
		{"truncated", s, scope, record[:len(sealMagic)+3], nil},
		{"altered", s, scope, append(bytes.Clone(record[:len(record)-1]), record[len(record)-1]^1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sealer.Open(tt.scope, tt.stored, nil)
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

// sealRaw seals plaintext under magic as Seal does, without deflating it: how
// responses were sealed before, or a frame Deflate did not write.
func sealRaw(s *Responses, magic []byte, scope kassa.IdempotencyScope, plaintext []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	out := append(bytes.Clone(magic), nonce...)
	return s.aead.Seal(out, nonce, plaintext, additionalData(magic, scope))
}

// TestResponsesDeflate: a create response comes back byte for byte, sealed
// in under a quarter of its size (so SQLite keeps its record on one page).
func TestResponsesDeflate(t *testing.T) {
	s := NewResponses([]byte("secret"))
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: kassa.NewUUID()}
	for _, body := range [][]byte{readFixture(t).CreateResponse, []byte("{}"), nil} {
		record := s.Seal(scope, body)
		if !bytes.HasPrefix(record, sealMagicDeflated) {
			t.Fatalf("sealed %q under another magic", record[:4])
		}
		if len(body) > 1000 && len(record) > len(body)/4 {
			t.Errorf("a %d-byte response sealed to %d bytes", len(body), len(record))
		}
		got, err := s.Open(scope, record, nil)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("opened %q, %v; want %q", got, err, body)
		}
	}
}
