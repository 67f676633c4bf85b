package store

import "sync"

// notifier wakes in-process followers of the store (the event stream, webhook
// workers) after a write transaction that changed data commits, so they need not
// wait for their next poll. Signals coalesce: a follower that is busy gets one
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
	db.commits.mu.Lock()
	defer db.commits.mu.Unlock()
	ch := make(chan struct{}, 1)
	db.commits.chs = append(db.commits.chs, ch)
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

// committed counts a committed transaction and, when it changed data, wakes the
// followers.
func (db *DB) committed(wrote bool) {
	db.stats.transactions.Add(1)
	if wrote {
		db.stats.wakes.Add(1)
		db.commits.signal()
		if db.pg != nil {
			db.pg.committed()
		}
	}
}
