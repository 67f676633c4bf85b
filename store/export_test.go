package store

import (
	"testing"
	"time"
)

// HoldCreates stops db's PostgreSQL create writer and puts in one that waits: the
// invoice creates made meanwhile queue up until release(n), which waits for n of
// them and starts the writer, so they make one batch (at most maxPGBatch).
func HoldCreates(t testing.TB, db *DB) (release func(n int)) {
	t.Helper()
	if db.creates == nil {
		t.Fatal("HoldCreates: not a PostgreSQL store")
	}
	db.creates.stop()
	held := newPGBatcher(db, false)
	db.creates = held
	return func(n int) {
		t.Helper()
		WaitCreatesQueued(t, db, n)
		held.start()
	}
}

// WaitCreatesQueued waits until n creates wait for db's PostgreSQL create writer.
func WaitCreatesQueued(t testing.TB, db *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); db.creates.queued() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates queued, want %d", db.creates.queued(), n)
		}
	}
}

// queued returns how many creates wait for the writer.
func (b *pgBatcher) queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}
