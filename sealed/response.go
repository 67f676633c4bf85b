package sealed

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/deflate"
)

// sealMagic starts every response sealed before they were deflated: its plaintext
// is the body. A JSON body never starts with a NUL byte, so a stored body without
// a magic is one saved in clear before responses were sealed.
var sealMagic = []byte("\x00ks1")

// sealMagicDeflated starts every response sealed now: its plaintext is the body's
// deflate.Deflate frame. A 1.6 KB create response seals to about 300 bytes, which keeps
// SQLite's idempotency record on its page (no overflow page).
var sealMagicDeflated = []byte("\x00ks2")

// Responses encrypts the responses saved under idempotency keys, so the payment
// session tokens and signatures they carry are never at rest in clear
// (decisions.md, "Running in production"). It uses AES-256-GCM (the AEAD a
// Keyring's keys use) under a key derived from the server secret (HKDF-SHA256),
// with the key's scope (merchant, environment, method and path, key) as
// additional data: a body moved to another row does not open. A record is
// binary, magic then nonce and ciphertext (kept in a BLOB column, never in text).
type Responses struct{ aead cipher.AEAD }

// NewResponses returns the sealer of the saved responses under the server secret.
func NewResponses(secret []byte) *Responses {
	key, err := hkdf.Key(sha256.New, secret, nil, "kassa idempotent responses v1", KeySize)
	if err != nil {
		panic(err) // only for a length HKDF-SHA256 cannot give; 32 it can
	}
	aead, err := newAEAD(key)
	if err != nil {
		panic(err) // only for a key length AES cannot take; 32 it can
	}
	return &Responses{aead: aead}
}

// Seal returns what is stored of body, the response saved under scope's key:
// magic, nonce, then the body deflated (deflate.Deflate), encrypted, and its tag. The
// secrets a response carries (session token, signature) are new in each one, so
// the compressed length tells nothing about another response's.
func (s *Responses) Seal(scope kassa.IdempotencyScope, body []byte) []byte {
	frame := deflate.Deflate(nil, body)
	out := make([]byte, len(sealMagicDeflated), len(sealMagicDeflated)+s.aead.NonceSize()+len(frame)+s.aead.Overhead())
	copy(out, sealMagicDeflated)
	return appendSealed(s.aead, out, frame, additionalData(sealMagicDeflated, scope))
}

// Open returns the response stored under scope's key, byte for byte the body that
// was sealed. ref is the data of the event a response sealed with a reference
// names (RefEventID, idempotency.Record.Ref), nil for any other. A body stored in
// clear (a row saved before sealing) is returned as it is, one sealed before
// deflating as it opens; a sealed one that does not open or inflate, or one
// under a magic this build does not know, is kassa.ErrSavedResponseUnreadable.
func (s *Responses) Open(scope kassa.IdempotencyScope, stored, ref []byte) ([]byte, error) {
	if _, ok := RefEventID(stored); ok {
		if body, err := s.openRef(scope, stored, ref); err == nil {
			return body, nil
		}
		// Else it may be a deflated record whose random nonce begins as a
		// reference does (sealMagicRef): it is opened as one below.
	}
	deflated := bytes.HasPrefix(stored, sealMagicDeflated)
	if !deflated && !bytes.HasPrefix(stored, sealMagic) {
		if len(stored) > 0 && stored[0] == 0 {
			// A format this build does not know (a newer instance's, during a
			// rolling upgrade): refused, never replayed as if it were a body.
			return nil, kassa.ErrSavedResponseUnreadable
		}
		return stored, nil
	}
	magic, rest := stored[:len(sealMagic)], stored[len(sealMagic):] // both magics are 4 bytes
	body, err := openSealed(s.aead, rest, additionalData(magic, scope))
	if err != nil {
		return nil, kassa.ErrSavedResponseUnreadable
	}
	if deflated {
		if body, err = deflate.Inflate(body); err != nil {
			return nil, kassa.ErrSavedResponseUnreadable
		}
	}
	return body, nil
}

// additionalData is what a sealed response is bound to besides its key: the key's
// scope, and since responses are deflated the magic too, so a record relabelled
// with the other magic does not open.
func additionalData(magic []byte, scope kassa.IdempotencyScope) []byte {
	b := make([]byte, 0, 64)
	if !bytes.Equal(magic, sealMagic) { // responses sealed before deflating bound the scope only
		b = append(b, magic...)
	}
	return appendScopeData(b, scope)
}

// appendScopeData appends the key's scope to b, each part length-prefixed so no two
// scopes share an encoding. Owner is not part of it: a claim taken over replays
// the same saved response.
func appendScopeData(b []byte, s kassa.IdempotencyScope) []byte {
	b = binary.AppendVarint(b, s.MerchantID)
	for _, part := range []string{string(s.Environment), s.Route, s.Key} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	return b
}
