package store

import "sync"

// notifier wakes in-process followers of the store (the event stream, webhook
// workers) after a write transaction commits, so they need not wait for their next
// poll. Signals coalesce: a follower that is busy gets one wake-up for many commits.
// Followers in other processes (PostgreSQL with several instances) rely on polling.
type notifier struct {
	mu  sync.Mutex
	chs []chan struct{}
}

// Commits returns a channel that receives a value after write transactions commit.
// Each call returns a channel of its own; it is never closed.
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
