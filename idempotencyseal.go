package kassa

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
)

// sealMagic starts every sealed saved response. A JSON body never starts with a
// NUL byte, so a stored body without it is one saved in clear before responses
// were sealed.
var sealMagic = []byte("\x00ks1")

// ErrSavedResponseUnreadable is returned for a sealed saved response that does not
// open: it was altered, or sealed under another server secret. Its request may or
// may not have made its change, so the request is neither replayed nor run again.
var ErrSavedResponseUnreadable = &Error{Kind: KindIdempotency, Code: "idempotency_response_unreadable",
	Param: "Idempotency-Key", Message: "The response saved under this Idempotency-Key cannot be read " +
		"(the server secret changed). Check whether the first request succeeded, then retry with a new key."}

// ResponseSealer encrypts the responses saved under idempotency keys, so the
// payment session tokens and signatures they carry are never at rest in clear
// (decisions.md, "Running in production"). It uses AES-256-GCM under a key derived
// from the server secret (HKDF-SHA256), with the key's scope (merchant,
// environment, method and path, key) as additional data: a body moved to another
// row does not open.
type ResponseSealer struct{ aead cipher.AEAD }

// NewResponseSealer returns the sealer of the server secret.
func NewResponseSealer(secret []byte) *ResponseSealer {
	key, err := hkdf.Key(sha256.New, secret, nil, "kassa idempotent responses v1", 32)
	if err != nil {
		panic(err) // only for a length HKDF-SHA256 cannot give; 32 it can
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &ResponseSealer{aead: aead}
}

// Seal returns what is stored of body, the response saved under scope's key:
// magic, nonce, ciphertext and tag.
func (s *ResponseSealer) Seal(scope IdempotencyScope, body []byte) []byte {
	out := make([]byte, len(sealMagic), len(sealMagic)+s.aead.NonceSize()+len(body)+s.aead.Overhead())
	copy(out, sealMagic)
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand never fails
	out = append(out, nonce...)
	return s.aead.Seal(out, nonce, body, scopeData(scope))
}

// Open returns the response stored under scope's key. A body stored in clear (a
// row saved before sealing) is returned as it is; a sealed one that does not open
// is ErrSavedResponseUnreadable.
func (s *ResponseSealer) Open(scope IdempotencyScope, stored []byte) ([]byte, error) {
	if !bytes.HasPrefix(stored, sealMagic) {
		return stored, nil
	}
	rest := stored[len(sealMagic):]
	if len(rest) < s.aead.NonceSize() {
		return nil, ErrSavedResponseUnreadable
	}
	body, err := s.aead.Open(nil, rest[:s.aead.NonceSize()], rest[s.aead.NonceSize():], scopeData(scope))
	if err != nil {
		return nil, ErrSavedResponseUnreadable
	}
	return body, nil
}

// scopeData is the additional data of a sealed response: the key's scope, each part
// length-prefixed so no two scopes share an encoding. Owner is not part of it: a
// claim taken over replays the same saved response.
func scopeData(s IdempotencyScope) []byte {
	b := binary.AppendVarint(nil, s.MerchantID)
	for _, part := range []string{string(s.Environment), s.Route, s.Key} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	return b
}
