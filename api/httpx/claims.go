package httpx

import (
	"sync"

	"github.com/kassapay/kassa"
)

// claimKey is an idempotency key's scope without the claimant.
type claimKey struct {
	merchantID  int64
	environment kassa.Environment
	route, key  string
}

// runningClaims are the idempotency keys whose requests run in this process right
// now, with each one's fingerprint. A second request with a key that is held here
// is answered at once (idempotency_key_reused or idempotency_key_in_use) without
// touching the store, and a request that takes a key here needs no claim written
// to the store before it runs: its response is saved in the transaction of its
// change (one commit per request). Across instances the store's unique key is the
// backstop (kassa.SavedResponse.Claimed).
type runningClaims struct {
	mu sync.Mutex
	m  map[claimKey]string
}

func newRunningClaims() *runningClaims { return &runningClaims{m: map[claimKey]string{}} }

func keyOf(s kassa.IdempotencyScope) claimKey {
	return claimKey{merchantID: s.MerchantID, environment: s.Environment, route: s.Route, key: s.Key}
}

// take holds the key for a request with fingerprint fp. It returns ok, or the
// fingerprint of the request that holds the key.
func (c *runningClaims) take(s kassa.IdempotencyScope, fp string) (held string, ok bool) {
	k := keyOf(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if held, busy := c.m[k]; busy {
		return held, false
	}
	c.m[k] = fp
	return "", true
}

// release lets the key go once its request has finished.
func (c *runningClaims) release(s kassa.IdempotencyScope) {
	k := keyOf(s)
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}
