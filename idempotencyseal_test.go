package kassa

import (
	"bytes"
	"errors"
	"testing"
)

// TestResponseSealer: a sealed response opens only under the same secret and the
// same scope; a clear (pre-sealing) body opens as it is; anything else is
// ErrSavedResponseUnreadable.
func TestResponseSealer(t *testing.T) {
	body := []byte(`{"session_token":"ps_x","signature":"ab"}` + "\n")
	scope := IdempotencyScope{MerchantID: 7, Environment: Devnet, Route: "POST /api/v1/invoices", Key: "k", Owner: "o1"}
	s := NewResponseSealer([]byte("secret"))
	sealed := s.Seal(scope, body)
	if bytes.Contains(sealed, []byte("ps_x")) || bytes.Equal(sealed, s.Seal(scope, body)) {
		t.Fatalf("sealed %q: clear, or the same twice", sealed)
	}
	other := scope
	other.MerchantID = 8
	takenOver := scope
	takenOver.Owner = "o2"
	tests := []struct {
		name   string
		sealer *ResponseSealer
		scope  IdempotencyScope
		stored []byte
		want   []byte // nil: unreadable
	}{
		{"same secret and scope", s, scope, sealed, body},
		{"claim taken over (owner is not scope)", s, takenOver, sealed, body},
		{"clear row from before sealing", s, scope, body, body},
		{"another scope", s, other, sealed, nil},
		{"another secret", NewResponseSealer([]byte("other")), scope, sealed, nil},
		{"truncated", s, scope, sealed[:len(sealMagic)+3], nil},
		{"altered", s, scope, append(bytes.Clone(sealed[:len(sealed)-1]), sealed[len(sealed)-1]^1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sealer.Open(tt.scope, tt.stored)
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
