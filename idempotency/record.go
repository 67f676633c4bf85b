package idempotency

import (
	"time"
)

// Record is what was saved under a key: running while the first request
// is in flight, then its response.
type Record struct {
	Fingerprint string // hash of method, path and canonical body
	Done        bool
	StatusCode  int
	Body        []byte
	// Ref is the data of the event a body sealed with a reference names
	// (sealed.RefEventID), read with the record; nil for any other body.
	Ref       []byte
	CreatedAt time.Time
}

// Outcome is what to do with a request whose key is already held.
type Outcome int

// The outcomes of a repeated idempotency key.
const (
	Replay Outcome = iota // same body, done: send the saved response
	Reused                // different body: 409 idempotency_key_reused
	InUse                 // first request still running: 409 idempotency_key_in_use
)

// Resolve decides what a request with fingerprint gets when rec holds its key.
func Resolve(rec *Record, fingerprint string) Outcome {
	switch {
	case rec.Fingerprint != fingerprint:
		return Reused
	case !rec.Done:
		return InUse
	default:
		return Replay
	}
}
