package store

import (
	"context"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// merchantCacheTTL is how long a merchant row read for an invoice create is
// reused. Changes made through this instance clear it at once; another instance's
// changes (PostgreSQL) reach an invoice's defaults within this time.
const merchantCacheTTL = 2 * time.Second

// merchantCache keeps merchant rows for the invoice create path, which reads the
// merchant's defaults and mainnet access on every create: a read per create that,
// on SQLite, finds the reader's page cache emptied by the previous write, and on
// PostgreSQL is a round trip.
type merchantCache struct {
	mu      sync.Mutex
	entries map[int64]merchantEntry
	gen     uint64 // counts forgets: a row read before one is not kept (see keyCache)
}

type merchantEntry struct {
	m       kassa.Merchant
	fetched time.Time
}

func newMerchantCache() *merchantCache { return &merchantCache{entries: map[int64]merchantEntry{}} }

// get returns a copy of the cached row if it is younger than merchantCacheTTL.
func (c *merchantCache) get(id int64, now time.Time) (*kassa.Merchant, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || now.Sub(e.fetched) >= merchantCacheTTL || now.Before(e.fetched) {
		return nil, false
	}
	m := e.m
	return &m, true
}

func (c *merchantCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps a row read after generation() returned gen, unless a forget came since.
func (c *merchantCache) put(m *kassa.Merchant, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.entries) >= 10_000 {
		c.entries = map[int64]merchantEntry{}
	}
	c.entries[m.ID] = merchantEntry{m: *m, fetched: now}
}

// forget drops a merchant once its row has changed.
func (c *merchantCache) forget(id int64) {
	c.mu.Lock()
	delete(c.entries, id)
	c.gen++
	c.mu.Unlock()
}

// merchantFor returns the merchant an invoice in env is created for: the cached
// row when it allows env, else a fresh read (so mainnet access granted by another
// process, such as `kassa merchant enable-mainnet`, counts at once).
func (db *DB) merchantFor(ctx context.Context, id int64, env kassa.Environment) (*kassa.Merchant, error) {
	now := db.clock()
	if m, ok := db.merchants.get(id, now); ok && (env != kassa.Mainnet || m.MainnetEnabled) {
		return m, nil
	}
	gen := db.merchants.generation()
	m, err := db.merchant(ctx, db.r, id, "")
	if err != nil {
		return nil, err
	}
	db.merchants.put(m, now, gen)
	return m, nil
}
