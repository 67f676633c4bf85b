package kassa

import (
	"time"
)

// Idempotency rules (decisions.md): keys are scoped to (merchant, environment,
// method+path, key), kept 24 h, at most 255 characters.
const (
	IdempotencyTTL    = 24 * time.Hour
	MaxIdempotencyKey = 255
	// IdempotencyStale is how long a claim may stay running before another request
	// may take it over (the first request's process is taken to have died).
	IdempotencyStale = time.Minute
)

// IdempotencyScope identifies one idempotency key, and who is claiming it.
type IdempotencyScope struct {
	MerchantID  int64
	Environment Environment
	Route       string // method and path, "POST /api/v1/invoices"
	Key         string
	// Owner is a token the claiming request picks (NewClaimOwner). It is not part of
	// the key: Complete and Release act only on a claim made with the same Owner, so
	// a request whose claim was taken over cannot touch the new owner's claim.
	Owner string
}

// NewClaimOwner returns a fresh IdempotencyScope.Owner token.
func NewClaimOwner() string { return RandomBase32(10) }

// ErrClaimLost is returned when a request's idempotency claim was taken over before
// it could save its response; the change it was making is rolled back.
var ErrClaimLost = &Error{Kind: KindIdempotency, Code: "idempotency_key_in_use", Param: "Idempotency-Key",
	Message: "A request with this Idempotency-Key is still being processed; retry shortly."}

// ErrSavedResponseUnreadable is returned for a sealed saved response that does not
// open: it was altered, or sealed under another server secret. Its request may or
// may not have made its change, so the request is neither replayed nor run again.
var ErrSavedResponseUnreadable = &Error{Kind: KindIdempotency, Code: "idempotency_response_unreadable",
	Param: "Idempotency-Key", Message: "The response saved under this Idempotency-Key cannot be read " +
		"(the server secret changed). Check whether the first request succeeded, then retry with a new key."}

// SavedResponse lets a store save an idempotent request's response in the same
// transaction as the change the request makes. Without it a crash between the
// change and the saved response would leave a claimed key with no response, and a
// retry could make the change twice; with it, a write is one commit instead of two.
// A nil *SavedResponse means the request holds no key: the store saves nothing.
type SavedResponse[T any] struct {
	Scope IdempotencyScope
	// Fingerprint is the request's (method, path, canonical body) hash, stored
	// with the response so a later request with the key can be told apart.
	Fingerprint string
	// Claimed says the key is already claimed in the store (ClaimIdempotencyKey):
	// the response completes that claim. Otherwise the store inserts the record
	// in the change's transaction, and a live record already under the key (a
	// concurrent request on another instance won) rolls the change back with
	// ErrClaimLost: one commit per request, and the unique key as the backstop.
	Claimed bool
	// Render renders the response from what the store made; the store calls it
	// inside the transaction and saves the result.
	Render func(result T) (status int, body []byte, err error)
	// Seal, when set, turns the rendered body into what is stored
	// (sealed.Responses.Seal); the client gets the rendered body.
	Seal func(body []byte) []byte
	// SealRef, when set, is Seal for a body that holds ref's data
	// (sealed.Responses.SealRef): the store passes the event it writes with the
	// change, and the body is saved referring to it (by ID) rather than holding
	// those bytes again.
	SealRef func(body []byte, ref *Event) []byte

	status int
	body   []byte
}

// Stored returns what is stored of a rendered body: sealed when Seal is set.
func (s *SavedResponse[T]) Stored(body []byte) []byte {
	if s.Seal == nil {
		return body
	}
	return s.Seal(body)
}

// StoredRef is Stored for a body that holds ref's data, as a create response holds
// its invoice.created event's: sealed with a reference to the event when SealRef
// is set.
func (s *SavedResponse[T]) StoredRef(body []byte, ref *Event) []byte {
	if s.SealRef == nil {
		return s.Stored(body)
	}
	return s.SealRef(body, ref)
}

// Save records the response the store saved; the store calls it after its commit.
func (s *SavedResponse[T]) Save(status int, body []byte) { s.status, s.body = status, body }

// Saved returns the response saved with the change, if the store saved one.
func (s *SavedResponse[T]) Saved() (status int, body []byte, ok bool) {
	if s == nil {
		return 0, nil, false
	}
	return s.status, s.body, s.body != nil
}

// CreatedInvoice is what CreateInvoice made: the result a SavedResponse renders.
type CreatedInvoice struct {
	Invoice      *Invoice
	SessionToken string
}
