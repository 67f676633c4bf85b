package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// Both formats of this package, a Keyring's text values and the binary saved
// responses, seal the same way after their own head: AES-256-GCM, a random
// 12-byte nonce, then the ciphertext and its tag. They differ in how the key is
// had (a KEK given, or derived from the server secret) and in what the head and
// additional data hold.

// errOpen is what openSealed returns for anything that does not open; each format
// answers with its own error.
var errOpen = errors.New("sealed: does not open")

// newAEAD returns AES-256-GCM under key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// appendSealed appends to dst a fresh random nonce, then plain encrypted under
// aead with additional data ad, and its tag.
func appendSealed(aead cipher.AEAD, dst, plain, ad []byte) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, aead.NonceSize())...)
	nonce := dst[n:]
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	return aead.Seal(dst, nonce, plain, ad)
}

// openSealed opens what appendSealed appended (nonce, ciphertext and tag) under
// aead with additional data ad; errOpen when it does not open.
func openSealed(aead cipher.AEAD, sealed, ad []byte) ([]byte, error) {
	n := aead.NonceSize()
	if len(sealed) < n+aead.Overhead() {
		return nil, errOpen
	}
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, errOpen
	}
	return plain, nil
}
