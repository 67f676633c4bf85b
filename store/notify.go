package store

import (
	"sync"
	"sync/atomic"
)

// notifier wakes in-process followers of the store after write transactions
// commit, so they need not wait for their next poll: DB.Commits (the event
// stream) after those that changed data, DB.Deliveries (the webhook worker) after
// those that queued deliveries. Signals coalesce: a follower that is busy gets one
// wake-up for many commits. On PostgreSQL, commits of other instances on the same
// database signal too (pgnotify.go); polling stays the fallback.
type notifier struct {
	mu  sync.Mutex
	chs []chan struct{}
}

// Commits returns a channel that receives a value after write transactions that
// changed data commit; transactions that only read (a queue claim that found
// nothing due) send nothing. Each call returns a channel of its own; it is never
// closed.
func (db *DB) Commits() <-chan struct{} {
	return db.commits.follow()
}

// Deliveries returns a channel that receives a value after transactions that
// queued webhook deliveries due at once commit (for this instance, and on
// PostgreSQL after any commit of another instance, which may have): the webhook
// worker's wake-up. Commits that queued none (a create with no endpoint, a
// recorded attempt, a claim) do not wake it; retries that fall due later are
// found by its poll. Each call returns a channel of its own; it is never closed.
func (db *DB) Deliveries() <-chan struct{} {
	return db.deliveries.follow()
}

// follow returns a new follower's channel.
func (n *notifier) follow() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := make(chan struct{}, 1)
	n.chs = append(n.chs, ch)
	return ch
}

// signal wakes every follower without blocking.
func (n *notifier) signal() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ch := range n.chs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Stats counts the store's work since it was opened.
type Stats struct {
	// Transactions is how many write transactions (each caller's own, also when
	// SQLite's group commit shares one commit among several) committed.
	Transactions int64
	// Wakes is how many of them changed data and so signalled Commits.
	Wakes int64
}

// Stats returns the counts so far. It is safe to call at any time.
func (db *DB) Stats() Stats {
	return Stats{Transactions: db.stats.transactions.Load(), Wakes: db.stats.wakes.Load()}
}

// txDid records, while a transaction runs, what it did that decides whom its
// commit wakes.
type txDid struct {
	data       atomic.Bool // a statement may have changed data: Commits
	deliveries atomic.Bool // a webhook delivery was queued, due at once: Deliveries
}

// done is what a committed transaction did (txDid, read once it is over).
type done struct{ data, deliveries bool }

func (d *txDid) load() done { return done{data: d.data.Load(), deliveries: d.deliveries.Load()} }

// queuedDelivery records that the transaction queued a webhook delivery due at once.
func (t txq) queuedDelivery() {
	if t.did != nil {
		t.did.deliveries.Store(true)
	}
}

// committed counts a committed transaction and wakes the followers of what it did.
func (db *DB) committed(d done) {
	db.stats.transactions.Add(1)
	if d.data {
		db.stats.wakes.Add(1)
		db.commits.signal()
		if db.pg != nil {
			db.pg.committed()
		}
	}
	if d.deliveries {
		db.deliveries.signal()
	}
}
