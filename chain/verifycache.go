package chain

import (
	"context"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// LookupTTL is how long verify remembers its look-up of a transaction, a
// transaction the node does not know included: a payor who presses verify again,
// or a script that sends one hash again and again, makes no RPC call and no store
// scan within it, and a payor who has just sent can still be found a few seconds
// later.
const LookupTTL = 5 * time.Second

// maxLookups bounds the look-ups remembered; past it the expired ones go, then
// any.
const maxLookups = 4096

// maxIngested bounds the invoices a look-up remembers having ingested for.
const maxIngested = 16

// lookup is one remembered look-up of a transaction on a network.
type lookup struct {
	done chan struct{} // closed once the fields below are set (or err)
	err  error         // the look-up failed: not remembered, the waiters try again
	at   time.Time

	transfers bool // the transaction is mined in a canonical block, succeeded, and was found
	tx        *Tx  // then: the transaction
	block     kassa.BlockRef
	head      uint64          // the node's head, for confirmations
	ingested  map[string]bool // invoices whose transfers in it were ingested (guarded by the cache's mu)
}

// lookupCache is verify's remembered look-ups, by environment, network and hash.
type lookupCache struct {
	mu      sync.Mutex
	entries map[string]*lookup
}

// get returns the look-up of key, running fetch when none is remembered at now.
// Concurrent gets of one key share one fetch. A failed fetch is not remembered.
func (c *lookupCache) get(ctx context.Context, key string, now time.Time, fetch func() (*lookup, error)) (*lookup, error) {
	for {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]*lookup{}
		}
		l := c.entries[key]
		if l != nil && !l.expired(now) {
			c.mu.Unlock()
			select {
			case <-l.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if l.err != nil {
				continue // the fetch it waited for failed: try again
			}
			return l, nil
		}
		l = &lookup{done: make(chan struct{}), at: now}
		c.evict(now)
		c.entries[key] = l
		c.mu.Unlock()

		got, err := fetch()
		c.mu.Lock()
		if err != nil {
			l.err = err
			if c.entries[key] == l {
				delete(c.entries, key)
			}
		} else {
			l.transfers, l.tx, l.block, l.head = got.transfers, got.tx, got.block, got.head
		}
		c.mu.Unlock()
		close(l.done)
		return l, err
	}
}

// expired reports whether l is too old to be used at now (a fetch still running
// is not).
func (l *lookup) expired(now time.Time) bool { return now.Sub(l.at) >= LookupTTL || now.Before(l.at) }

// evict makes room for one more entry; the caller holds c.mu.
func (c *lookupCache) evict(now time.Time) {
	if len(c.entries) < maxLookups {
		return
	}
	for k, l := range c.entries {
		if l.expired(now) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < maxLookups {
			break
		}
		delete(c.entries, k)
	}
}

// firstIngest reports whether invoiceID's transfers in l are yet to be ingested,
// and marks them as being so.
func (c *lookupCache) firstIngest(l *lookup, invoiceID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.ingested[invoiceID] {
		return false
	}
	if l.ingested == nil {
		l.ingested = map[string]bool{}
	}
	if len(l.ingested) < maxIngested {
		l.ingested[invoiceID] = true
	}
	return true
}

// forget drops invoiceID's mark, after its ingestion failed.
func (c *lookupCache) forget(l *lookup, invoiceID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(l.ingested, invoiceID)
}
