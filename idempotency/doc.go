// Package idempotency holds what is saved under an idempotency key (Record) and
// the rule for a request that repeats a key (Resolve), as the HTTP layer, the
// dashboard and the store share them. The key's scope and the response
// a change saves with it (kassa.IdempotencyScope, kassa.SavedResponse) are the
// domain's, since the invoice service takes them. It imports only the standard
// library.
package idempotency
