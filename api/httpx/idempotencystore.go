package httpx

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
)

// IdempotencyStore keeps idempotency keys (the store implements it) and the responses saved under them.
type IdempotencyStore interface {
	// ClaimIdempotencyKey claims the key for a request with this fingerprint. It
	// returns nil when the caller now owns the key, or the record that holds it. A
	// record older than IdempotencyTTL, or running for longer than
	// IdempotencyStale, is taken over as if absent.
	ClaimIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope, fingerprint string) (*idempotency.Record, error)
	// CompleteIdempotencyKey saves the response of the request that owns the key.
	CompleteIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope, status int, body []byte) error
	// ReleaseIdempotencyKey forgets a claim whose request saved nothing (it failed
	// validation), so a retry with a fixed body works.
	ReleaseIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope) error

	// IdempotencyRecord returns what the store holds under the key, or nil when it
	// holds nothing live (no record, or one IdempotencyStale or IdempotencyTTL
	// would let a claim take over). It writes nothing.
	IdempotencyRecord(ctx context.Context, s kassa.IdempotencyScope) (*idempotency.Record, error)
	// SaveIdempotentResponse stores the finished response of a request that made
	// no durable claim (SavedResponse.Claimed false) and whose store call saved
	// nothing, such as a 500. A live record already under the key makes it fail
	// with ErrClaimLost.
	SaveIdempotentResponse(ctx context.Context, s kassa.IdempotencyScope, fingerprint string, status int, body []byte) error
}
