// Package sealed encrypts what Kassa keeps at rest, in two stored forms over one
// AEAD (AES-256-GCM, aead.go):
//
//   - secrets (Keyring, this file): under a key-encryption key (KEK), in a
//     self-describing text form;
//   - the responses saved under idempotency keys (Responses, response.go and
//     responseref.go): under a key derived from the server secret, binary and
//     deflated (internal/deflate), a create's response by reference to its event.
//
// A secret's text form is
//
//	kseal:v1:<key id>:<base64url(nonce || ciphertext)>
//
// The key id is the first 4 bytes (8 hex digits) of a hash of the KEK, so a value
// says which key sealed it and rotation can find the values under an old key. The
// additional data binds a value to where it lives (a table, column and row id, or a
// file name): a value copied elsewhere does not open.
package sealed

import (
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every sealed value.
const Prefix = "kseal:"

// version is the format sealed values are written in.
const version = "v1"

// KeySize is the length of a KEK in bytes.
const KeySize = 32

// ErrUnknownKey is returned (wrapped) when a value was sealed under a key that is
// not in the keyring.
var ErrUnknownKey = errors.New("sealed under a key that is not the secrets key given")

// ErrCorrupt is returned (wrapped) when a value does not decrypt: damaged, altered,
// or moved from the place it was sealed for.
var ErrCorrupt = errors.New("sealed value does not decrypt (damaged, altered or moved)")

// Key is one KEK.
type Key struct {
	id   string
	aead cipher.AEAD
}

// ParseKey reads a KEK written as text: 32 bytes in hex (64 digits) or in
// standard base64 (44 characters with padding). Surrounding space is ignored.
func ParseKey(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	var (
		b   []byte
		err error
	)
	switch len(text) {
	case 2 * KeySize:
		b, err = hex.DecodeString(text)
	case base64.StdEncoding.EncodedLen(KeySize):
		b, err = base64.StdEncoding.DecodeString(text)
	default:
		return nil, fmt.Errorf("sealed: a secrets key is %d bytes written as 64 hex digits or 44 base64 characters", KeySize)
	}
	if err != nil || len(b) != KeySize {
		return nil, fmt.Errorf("sealed: a secrets key is %d bytes written as 64 hex digits or 44 base64 characters", KeySize)
	}
	return newKey(b)
}

// NewKey returns a fresh random KEK and its text form (hex), to be kept apart
// from the data it protects.
func NewKey() (*Key, string) {
	b := make([]byte, KeySize)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	k, _ := newKey(b)
	return k, hex.EncodeToString(b)
}

func newKey(b []byte) (*Key, error) {
	aead, err := newAEAD(b)
	if err != nil {
		return nil, fmt.Errorf("sealed: %w", err)
	}
	h := sha256.Sum256(append([]byte("kassa secrets key id\x00"), b...))
	return &Key{id: hex.EncodeToString(h[:4]), aead: aead}, nil
}

// ID is the key's id, as sealed values name it.
func (k *Key) ID() string { return k.id }

// Keyring seals under one key and opens under it or any older key given.
type Keyring struct {
	current *Key
	keys    map[string]*Key
}

// NewKeyring returns a keyring sealing under current and opening under current
// and older (during a rotation, the key being replaced).
func NewKeyring(current *Key, older ...*Key) *Keyring {
	r := &Keyring{current: current, keys: map[string]*Key{current.id: current}}
	for _, k := range older {
		if _, ok := r.keys[k.id]; !ok {
			r.keys[k.id] = k
		}
	}
	return r
}

// CurrentID is the id of the key values are sealed under.
func (r *Keyring) CurrentID() string { return r.current.id }

// Seal encrypts plain for place (what binds it: "table.column:row id", a file
// name) under the current key.
func (r *Keyring) Seal(plain, place string) string {
	k := r.current
	ct := appendSealed(k.aead, nil, []byte(plain), additional(k.id, place))
	return Prefix + version + ":" + k.id + ":" + base64.RawURLEncoding.EncodeToString(ct)
}

// Open decrypts value, sealed for place. A value sealed under a key the keyring
// lacks gives an error wrapping ErrUnknownKey; one that does not decrypt, an error
// wrapping ErrCorrupt. The error never holds the value.
func (r *Keyring) Open(value, place string) (string, error) {
	id, body, err := parse(value)
	if err != nil {
		return "", err
	}
	k, ok := r.keys[id]
	if !ok {
		return "", fmt.Errorf("%s: %w (key id %s; the key given has id %s: wrong --secrets-key-file or KASSA_SECRETS_KEY?)",
			place, ErrUnknownKey, id, r.current.id)
	}
	ct, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", fmt.Errorf("%s: %w", place, ErrCorrupt)
	}
	plain, err := openSealed(k.aead, ct, additional(id, place))
	if err != nil {
		return "", fmt.Errorf("%s: %w", place, ErrCorrupt)
	}
	return string(plain), nil
}

// IsSealed reports whether value is in the sealed form (of any version).
func IsSealed(value string) bool { return strings.HasPrefix(value, Prefix) }

// KeyID returns the id of the key value is sealed under; false when value is not
// a sealed value this package reads.
func KeyID(value string) (string, bool) {
	id, _, err := parse(value)
	return id, err == nil
}

// parse splits a sealed value into its key id and body.
func parse(value string) (id, body string, err error) {
	rest, ok := strings.CutPrefix(value, Prefix)
	if !ok {
		return "", "", errors.New("sealed: not a sealed value")
	}
	parts := strings.SplitN(rest, ":", 3)
	if len(parts) != 3 {
		return "", "", fmt.Errorf("sealed: %w", ErrCorrupt)
	}
	if parts[0] != version {
		return "", "", fmt.Errorf("sealed: format %q is not known to this version of Kassa", parts[0])
	}
	return parts[1], parts[2], nil
}

// additional is the additional data a value is sealed with: the format, the key
// id and the place.
func additional(id, place string) []byte {
	return []byte(Prefix + version + ":" + id + ":" + place)
}
