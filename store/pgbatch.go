package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// maxPGBatch bounds how many invoice creates share one PostgreSQL transaction.
const maxPGBatch = 64

// pgBatchTimeout bounds one batch's transaction: a database that stops answering
// fails the batch's creates instead of holding every later create.
const pgBatchTimeout = 30 * time.Second

// pgBatcher gathers the invoice creates that arrive together on PostgreSQL into
// shared transactions (pgCreateInvoices): one BEGIN and COMMIT, one WAL flush and
// one multi-row INSERT per table for the lot, where each create alone cost
// PostgreSQL all of that. One goroutine writes the batches, one after another:
// the creates that arrive while a batch is written make the next. Each create
// still succeeds or fails alone: a batch that one of them would fail is rolled
// back and its creates run one by one. With no load a create finds no company
// and runs alone at once, as before batching.
type pgBatcher struct {
	db                  *DB
	mu                  sync.Mutex
	pending             []*pgJob
	closed              bool
	wake                chan struct{} // a token: pending may hold work
	quit                chan struct{}
	done                chan struct{} // closed when the writer goroutine ends
	startOnce, stopOnce sync.Once
	// pin is the writer's connection while creates keep coming (pgpin.go); only
	// the writer goroutine uses it. It goes back to the pool after pinIdle
	// without creates (tests shorten it).
	pin     pgPin
	pinIdle time.Duration
	// memo holds the webhook endpoints the writer last read (pgendpoints.go).
	memo *endpointMemo
}

// pgJob is one create waiting for its outcome.
type pgJob struct {
	w      pgInvoiceWrite
	result chan error
}

// newPGBatcher returns a batcher for db, its writer started now or, for tests
// that gather a known batch first, by start.
func newPGBatcher(db *DB, started bool) *pgBatcher {
	b := &pgBatcher{db: db, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		pin: pgPin{db: db}, pinIdle: pinIdle, memo: &endpointMemo{}}
	if started {
		b.start()
	}
	return b
}

// start starts the writer goroutine, the first time it is called.
func (b *pgBatcher) start() { b.startOnce.Do(func() { go b.loop() }) }

// do writes w in the next batch and returns its outcome once committed or rolled
// back. When ctx ends before the writer has taken w, w is withdrawn and never
// written; once taken, do waits for the outcome even if ctx ends, so a caller
// never reports a failure for a create that was committed.
func (b *pgBatcher) do(ctx context.Context, w pgInvoiceWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &pgJob{w: w, result: make(chan error, 1)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("store: closed")
	}
	b.pending = append(b.pending, j)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default: // the writer is woken already
	}
	select {
	case err := <-j.result:
		return err
	case <-ctx.Done():
		if b.withdraw(j) {
			return ctx.Err()
		}
		return <-j.result
	}
}

// withdraw removes j from the queue if the writer has not taken it yet.
func (b *pgBatcher) withdraw(j *pgJob) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.Index(b.pending, j)
	if i < 0 {
		return false
	}
	b.pending = slices.Delete(b.pending, i, i+1)
	return true
}

// take removes up to maxPGBatch waiting creates, oldest first.
func (b *pgBatcher) take() []*pgJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(b.pending), maxPGBatch)
	if n == 0 {
		return nil
	}
	batch := append([]*pgJob(nil), b.pending[:n]...)
	b.pending = append(b.pending[:0], b.pending[n:]...)
	return batch
}

// loop is the writer: it writes what is queued, batch after batch, and sleeps
// until woken when nothing is. Its pinned connection goes back to the pool after
// b.pinIdle without creates; with none pinned it sleeps without a timer.
func (b *pgBatcher) loop() {
	defer close(b.done)
	defer b.pin.release()
	idle := time.NewTimer(b.pinIdle)
	defer idle.Stop()
	for {
		if batch := b.take(); batch != nil {
			b.run(batch)
			continue
		}
		var idleC <-chan time.Time // nil: no pin to give back
		if b.pin.conn != nil {
			idle.Reset(b.pinIdle)
			idleC = idle.C
		}
		select {
		case <-b.wake:
		case <-idleC:
			if b.pin.idleFor() >= b.pinIdle {
				b.pin.release()
			}
		case <-b.quit: // nothing is queued after: write what is, and end
			for batch := b.take(); batch != nil; batch = b.take() {
				b.run(batch)
			}
			return
		}
	}
}

// run writes batch in one transaction, or its creates one by one when it is one
// create or when the batch hit an error that is some create's own (a live
// idempotency record, a statement the database refused).
func (b *pgBatcher) run(batch []*pgJob) {
	if len(batch) > 1 {
		ws := make([]pgInvoiceWrite, len(batch))
		for i, j := range batch {
			ws[i] = j.w
		}
		err := b.write(func(ctx context.Context) error { return b.db.pgCreateInvoices(ctx, b.pin.run, b.memo, ws) })
		if !splits(err) {
			for _, j := range batch {
				j.result <- err
			}
			return
		}
	}
	for _, j := range batch { // each with time of its own, whatever the batch took
		j.result <- b.write(func(ctx context.Context) error { return b.db.pgCreateInvoice(ctx, b.pin.run, b.memo, j.w) })
	}
}

// write runs one transaction with pgBatchTimeout: it outlives any one caller's
// context.
func (b *pgBatcher) write(tx func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgBatchTimeout)
	defer cancel()
	return tx(ctx)
}

// stop refuses new creates, has the writer finish those already queued, and waits
// for it.
func (b *pgBatcher) stop() {
	b.stopOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		close(b.quit)
	})
	b.start() // a writer never started (a test) still writes what is queued
	<-b.done
}
