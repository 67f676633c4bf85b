package sealed

import (
	"bytes"
	"encoding/binary"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/deflate"
)

// A create response holds the invoice it made, byte for byte the data of the
// invoice.created event committed with it. The response saved under the
// request's idempotency key leaves those bytes out and names the event instead:
// each create deflates and seals about a third of the response rather than all
// of it, and a replay reads the event's data back. Events are kept for
// kassa.EventRetention, far longer than a key lives (kassa.IdempotencyTTL), so the event is
// there for as long as the record can be replayed.

// sealMagicRef starts a response sealed with a reference (SealRef), then the
// event's id in clear, nonce and ciphertext. It begins with sealMagicDeflated on
// purpose: an instance older than references (a rolling upgrade) takes such a
// record for a deflated one, whose additional data does not match, and answers
// idempotency_response_unreadable instead of replaying the bytes as a body. Its
// next four bytes stand where that format's random nonce starts, so a record of
// the older format can begin the same way (once in 2^32, and then needs a valid
// event id after it, 2^-128 more): Open tries it both ways.
var sealMagicRef = []byte("\x00ks2\xffref")

// eventIDLen is the length of every event id: "evt_" and 32 hex digits.
const eventIDLen = 36

// minRefLen is the shortest data worth referring to: a reference costs the id.
const minRefLen = 2 * eventIDLen

// SealRef is Seal for a body that holds ref.Data. What is sealed is the body
// without those bytes, preceded by where they were; the event's id is stored in
// clear after the magic. The additional data binds the magic, the id, the key's
// scope and the event's data itself, so a record opens only with those very bytes
// read back (the store cannot be made to replay an altered invoice, as it could
// not when the body was sealed whole). A body that does not hold the data, or a
// ref that names no event, is sealed as Seal seals it.
func (s *Responses) SealRef(scope kassa.IdempotencyScope, body []byte, ref *kassa.Event) []byte {
	at := -1
	if len(ref.Data) >= minRefLen && len(ref.ID) == eventIDLen && kassa.ValidEventID(ref.ID) {
		at = bytes.Index(body, ref.Data)
	}
	if at < 0 {
		return s.Seal(scope, body)
	}
	rest := make([]byte, 0, len(body)-len(ref.Data)+binary.MaxVarintLen64)
	rest = binary.AppendUvarint(rest, uint64(at))
	rest = append(rest, body[:at]...)
	rest = append(rest, body[at+len(ref.Data):]...)
	frame := deflate.Deflate(nil, rest)
	head := len(sealMagicRef) + eventIDLen
	out := make([]byte, head, head+s.aead.NonceSize()+len(frame)+s.aead.Overhead())
	copy(out, sealMagicRef)
	copy(out[len(sealMagicRef):], ref.ID)
	return appendSealed(s.aead, out, frame, refData(out[:head], scope, ref.Data))
}

// refData is the additional data of a response sealed with a reference: its
// head (magic and event id), the key's scope and the event's data.
func refData(head []byte, scope kassa.IdempotencyScope, data []byte) []byte {
	return append(appendScopeData(append(make([]byte, 0, len(head)+64+len(data)), head...), scope), data...)
}

// RefEventID returns the id of the event a stored response refers to: one SealRef
// sealed with a reference. The store reads that event's data with the record
// (idempotency.Record.Ref) for Open.
func RefEventID(stored []byte) (string, bool) {
	if !bytes.HasPrefix(stored, sealMagicRef) || len(stored) < len(sealMagicRef)+eventIDLen {
		return "", false
	}
	id := string(stored[len(sealMagicRef) : len(sealMagicRef)+eventIDLen])
	return id, kassa.ValidEventID(id)
}

// openRef opens a response sealed with a reference, given ref, the data of the
// event it names: the body comes back byte for byte. Missing or other data, like
// anything that does not open, is kassa.ErrSavedResponseUnreadable.
func (s *Responses) openRef(scope kassa.IdempotencyScope, stored, ref []byte) ([]byte, error) {
	if _, ok := RefEventID(stored); !ok {
		return nil, kassa.ErrSavedResponseUnreadable
	}
	head := len(sealMagicRef) + eventIDLen
	frame, err := openSealed(s.aead, stored[head:], refData(stored[:head], scope, ref))
	if err != nil {
		return nil, kassa.ErrSavedResponseUnreadable
	}
	plain, err := deflate.Inflate(frame)
	if err != nil {
		return nil, kassa.ErrSavedResponseUnreadable
	}
	at, k := binary.Uvarint(plain)
	if k <= 0 || at > uint64(len(plain)-k) {
		return nil, kassa.ErrSavedResponseUnreadable
	}
	plain = plain[k:]
	body := make([]byte, 0, len(plain)+len(ref))
	body = append(body, plain[:at]...)
	body = append(body, ref...)
	return append(body, plain[at:]...), nil
}
