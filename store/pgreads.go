package store

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kassapay/kassa"
)

// maxPGReads bounds how many pages of invoices share one PostgreSQL round trip.
const maxPGReads = 32

// pgReadTimeout bounds one round trip of pages: a database that stops answering
// fails its pages instead of holding the runner.
const pgReadTimeout = 30 * time.Second

// pgReads sends the pages of invoices that PostgreSQL is asked for at the same
// time in one pipeline (a pgx batch: one write to the socket, the queries run one
// after another, one read of the answers). Each page's query costs Kassa and
// PostgreSQL a write, a read and the wake-ups they cause on the other side; on the
// loopback of a virtual machine those were a quarter of a list's CPU (issue 17,
// docs/performance.md). Each query is its own statement with its own snapshot,
// sent after its request arrived, so a page sees every change committed before it
// was asked for, as when it ran alone.
//
// At most runners round trips are under way at once, one per core: fewer would
// queue the pages of a few callers behind each other when nothing else is going
// on (with one runner on two cores, two callers listing at once each waited for
// the other's round trip: 580 µs a page against 340 alone), more would only make
// smaller batches. A request that
// finds a runner free runs the queued pages itself; those queued meanwhile go on
// in a goroutine that keeps the runner until the queue is empty. With no load a
// page runs at once, alone, on its caller's goroutine.
type pgReads struct {
	db      *DB
	runners int
	rounds  atomic.Int64 // round trips made, for tests

	mu      sync.Mutex
	pending []*pageRead
	running int
}

// pageRead is one page waiting for its rows.
type pageRead struct {
	q    invoicePage
	now  time.Time
	out  []*kassa.Invoice
	err  error
	done chan struct{} // closed once out and err are set
}

func newPGReads(db *DB) *pgReads {
	return &pgReads{db: db, runners: runtime.GOMAXPROCS(0)}
}

// page returns the rows of q, each with its status effective at now. When ctx
// ends first the page is withdrawn if no runner has taken it; a page a runner
// has is a bounded read (bounded.go), so page waits for it and returns it.
func (p *pgReads) page(ctx context.Context, q invoicePage, now time.Time) ([]*kassa.Invoice, error) {
	r := &pageRead{q: q, now: now, done: make(chan struct{})}
	p.mu.Lock()
	p.pending = append(p.pending, r)
	lead := p.running < p.runners
	if lead {
		p.running++
	}
	p.mu.Unlock()
	if lead {
		p.lead()
	}
	select {
	case <-r.done:
		return r.out, r.err
	case <-ctx.Done():
		if p.withdraw(r) {
			return nil, ctx.Err()
		}
		<-r.done
		return r.out, r.err
	}
}

// lead runs the pages queued now, on the caller's goroutine, and hands the
// runner to a goroutine of its own if more were queued meanwhile.
func (p *pgReads) lead() {
	batch := p.take()
	if batch == nil { // another runner took this page
		return
	}
	p.run(batch)
	if batch = p.take(); batch != nil {
		go p.drain(batch)
	}
}

// drain runs batch and every batch queued after it, then frees the runner.
func (p *pgReads) drain(batch []*pageRead) {
	for ; batch != nil; batch = p.take() {
		p.run(batch)
	}
}

// take removes up to maxPGReads queued pages, oldest first; with none queued it
// frees the caller's runner.
func (p *pgReads) take() []*pageRead {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := min(len(p.pending), maxPGReads)
	if n == 0 {
		p.running--
		return nil
	}
	batch := slices.Clone(p.pending[:n])
	p.pending = slices.Delete(p.pending, 0, n)
	return batch
}

// withdraw removes r from the queue if no runner has taken it, and reports
// whether it did.
func (p *pgReads) withdraw(r *pageRead) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.pending, r)
	if i >= 0 {
		p.pending = slices.Delete(p.pending, i, i+1)
	}
	return i >= 0
}

// run reads batch in one round trip. The queries of a pipeline share its
// implicit transaction, so a query that fails fails those after it: a batch with
// an error is read again page by page, each page failing alone.
func (p *pgReads) run(batch []*pageRead) {
	ctx, cancel := context.WithTimeout(context.Background(), pgReadTimeout)
	defer cancel()
	p.rounds.Add(1)
	err := p.db.onPGConn(ctx, func(c *pgx.Conn) error { return readPages(ctx, c, batch) })
	if err != nil && len(batch) > 1 {
		for _, r := range batch {
			r.err = p.db.onPGConn(ctx, func(c *pgx.Conn) error { return readPages(ctx, c, []*pageRead{r}) })
		}
	} else if err != nil {
		batch[0].err = err
	}
	for _, r := range batch {
		if r.err != nil {
			r.out, r.err = nil, fmt.Errorf("store: list invoices: %w", r.err)
		}
		close(r.done)
	}
}

// readPages sends the queries of batch and scans their rows into its pages; a
// batch of one is a plain query.
func readPages(ctx context.Context, c *pgx.Conn, batch []*pageRead) error {
	if len(batch) == 1 {
		rows, err := c.Query(ctx, batch[0].q.query, batch[0].q.args...)
		if err != nil {
			return err
		}
		return batch[0].scan(rows)
	}
	b := &pgx.Batch{}
	for _, r := range batch {
		b.Queue(r.q.query, r.q.args...)
	}
	br := c.SendBatch(ctx, b)
	for _, r := range batch {
		rows, err := br.Query()
		if err == nil {
			err = r.scan(rows)
		}
		if err != nil {
			br.Close()
			return err
		}
	}
	return br.Close()
}

// scan reads the rows of r's query and closes them.
func (r *pageRead) scan(rows pgx.Rows) error {
	defer rows.Close()
	out := make([]*kassa.Invoice, 0, r.q.limit+1)
	var sc invoiceScan
	for rows.Next() {
		if err := scanRaw(rows.FieldDescriptions(), rows.RawValues(), sc.destinations()); err != nil {
			return err
		}
		inv, err := sc.invoice()
		if err != nil {
			return err
		}
		inv.Status = inv.EffectiveStatus(r.now)
		out = append(out, inv)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.out = out
	return nil
}
