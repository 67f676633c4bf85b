package kassa

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"hash/crc32"
)

// A create response holds the invoice it made, byte for byte the data of the
// invoice.created event committed with it. The response saved under the
// request's idempotency key leaves those bytes out and names the event instead:
// each create deflates and seals about a third of the response rather than all
// of it, and a replay reads the event's data back. Events are kept for
// EventRetention, far longer than a key lives (IdempotencyTTL), so the event is
// there for as long as the record can be replayed.

// sealMagicRef starts a response sealed with a reference (SealRef): the magic,
// the event's id in clear, then nonce and ciphertext as under sealMagicDeflated.
var sealMagicRef = []byte("\x00ks3")

// eventIDLen is the length of every event id: "evt_" and 32 hex digits.
const eventIDLen = 36

// minRefLen is the shortest data worth referring to: a reference costs the id.
const minRefLen = 2 * eventIDLen

// ResponseRef names the event whose data a response body holds.
type ResponseRef struct {
	EventID string // the event's id
	Data    []byte // the event's data, as stored
}

// SealRef is Seal for a body that holds ref.Data. What is sealed is the body
// without those bytes, preceded by where they were, their length and their CRC-32;
// the event's id is stored in clear after the magic and bound to the ciphertext as
// additional data, with the key's scope. A body that does not hold the data, or a
// ref that names no event, is sealed as Seal seals it.
func (s *ResponseSealer) SealRef(scope IdempotencyScope, body []byte, ref ResponseRef) []byte {
	at := -1
	if len(ref.Data) >= minRefLen && len(ref.EventID) == eventIDLen && ValidEventID(ref.EventID) {
		at = bytes.Index(body, ref.Data)
	}
	if at < 0 {
		return s.Seal(scope, body)
	}
	rest := make([]byte, 0, len(body)-len(ref.Data)+2*binary.MaxVarintLen64+4)
	rest = binary.AppendUvarint(rest, uint64(at))
	rest = binary.AppendUvarint(rest, uint64(len(ref.Data)))
	rest = binary.BigEndian.AppendUint32(rest, crc32.ChecksumIEEE(ref.Data))
	rest = append(rest, body[:at]...)
	rest = append(rest, body[at+len(ref.Data):]...)
	frame := Deflate(nil, rest)
	head := len(sealMagicRef) + eventIDLen
	out := make([]byte, head, head+s.aead.NonceSize()+len(frame)+s.aead.Overhead())
	copy(out, sealMagicRef)
	copy(out[len(sealMagicRef):], ref.EventID)
	nonce := out[head : head+s.aead.NonceSize()]
	_, _ = rand.Read(nonce) // crypto/rand never fails
	out = out[:head+len(nonce)]
	return s.aead.Seal(out, nonce, frame, additionalData(out[:head], scope))
}

// SealedRef returns the id of the event a stored response refers to: one SealRef
// sealed with a reference. The store reads that event's data with the record
// (IdempotencyRecord.Ref) for Open.
func SealedRef(stored []byte) (string, bool) {
	if !bytes.HasPrefix(stored, sealMagicRef) || len(stored) < len(sealMagicRef)+eventIDLen {
		return "", false
	}
	id := string(stored[len(sealMagicRef) : len(sealMagicRef)+eventIDLen])
	return id, ValidEventID(id)
}

// openRef opens a response sealed with a reference, given ref, the data of the
// event it names: the body comes back byte for byte. Missing or other data (its
// length or checksum differ), like anything that does not open, is
// ErrSavedResponseUnreadable.
func (s *ResponseSealer) openRef(scope IdempotencyScope, stored, ref []byte) ([]byte, error) {
	if _, ok := SealedRef(stored); !ok {
		return nil, ErrSavedResponseUnreadable
	}
	head := len(sealMagicRef) + eventIDLen
	rest := stored[head:]
	if len(rest) < s.aead.NonceSize() {
		return nil, ErrSavedResponseUnreadable
	}
	frame, err := s.aead.Open(nil, rest[:s.aead.NonceSize()], rest[s.aead.NonceSize():], additionalData(stored[:head], scope))
	if err != nil {
		return nil, ErrSavedResponseUnreadable
	}
	plain, err := Inflate(frame)
	if err != nil {
		return nil, ErrSavedResponseUnreadable
	}
	at, k := binary.Uvarint(plain)
	if k <= 0 {
		return nil, ErrSavedResponseUnreadable
	}
	n, m := binary.Uvarint(plain[k:])
	if m <= 0 || len(plain) < k+m+4 {
		return nil, ErrSavedResponseUnreadable
	}
	sum, plain := binary.BigEndian.Uint32(plain[k+m:]), plain[k+m+4:]
	if n != uint64(len(ref)) || sum != crc32.ChecksumIEEE(ref) || at > uint64(len(plain)) {
		return nil, ErrSavedResponseUnreadable
	}
	body := make([]byte, 0, len(plain)+len(ref))
	body = append(body, plain[:at]...)
	body = append(body, ref...)
	return append(body, plain[at:]...), nil
}
