package store

import (
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// keyCacheTTL is how long an authenticated key's row is reused without reading the
// database. Revoking takes effect at once in this process and, through the
// PostgreSQL listener (pgnotify.go), in every other instance on the same database;
// rows are not cached while that listener is disconnected.
const keyCacheTTL = 2 * time.Second

// keyCache keeps recently used API key rows by lookup prefix, so a busy key costs
// no query per request. Entries hold the secret's hash, never the secret.
type keyCache struct {
	mu      sync.Mutex
	entries map[string]keyEntry
	// gen counts forgets. A row read before a revoke must not be cached after it:
	// put keeps a row only if no forget happened since its read began.
	gen uint64
}

type keyEntry struct {
	key     kassa.APIKey
	hash    []byte
	fetched time.Time
}

func newKeyCache() *keyCache { return &keyCache{entries: map[string]keyEntry{}} }

// get returns the cached row for prefix if it is younger than keyCacheTTL at now.
func (c *keyCache) get(prefix string, now time.Time) (kassa.APIKey, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[prefix]
	if !ok || now.Sub(e.fetched) >= keyCacheTTL || now.Before(e.fetched) {
		return kassa.APIKey{}, nil, false
	}
	return e.key, e.hash, true
}

// generation returns the forget count to pass to put after reading a row.
func (c *keyCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put caches a row read after generation() returned gen; the cache is emptied when
// it grows past 10,000 keys.
func (c *keyCache) put(k kassa.APIKey, hash []byte, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return // a key was revoked while this row was read: it may be stale
	}
	if len(c.entries) >= 10_000 {
		c.entries = map[string]keyEntry{}
	}
	c.entries[k.Prefix] = keyEntry{key: k, hash: hash, fetched: now}
}

// clear drops every key, e.g. when revocations may have been missed.
func (c *keyCache) clear() {
	c.mu.Lock()
	c.entries = map[string]keyEntry{}
	c.gen++
	c.mu.Unlock()
}

// forget drops a key, e.g. once it is revoked.
func (c *keyCache) forget(prefix string) {
	c.mu.Lock()
	delete(c.entries, prefix)
	c.gen++
	c.mu.Unlock()
}
