package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
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
	held.memo = db.creates.memo
	db.creates = held
	return func(n int) {
		t.Helper()
		WaitCreatesQueued(t, db, n)
		held.start()
	}
}

// PinCreates replaces db's PostgreSQL create writer with one that gives its
// pinned connection back after idle, and returns how many connections it has
// taken from the pool, the pinned one's backend (0: none) and how many of the
// pool's connections are in use.
func PinCreates(t testing.TB, db *DB, idle time.Duration) (taken func() int64, pid func() uint32, inUse func() int) {
	t.Helper()
	if db.creates == nil {
		t.Fatal("PinCreates: not a PostgreSQL store")
	}
	db.creates.stop()
	b := newPGBatcher(db, false)
	b.memo = db.creates.memo
	b.pinIdle = idle
	b.start()
	db.creates = b
	return b.pin.taken.Load, b.pin.pid.Load, func() int { return db.w.Stats().InUse }
}

// CreateTrips returns how many create batches db's PostgreSQL create writer has
// sent in one round trip, and how many of those found their webhook endpoints
// changed (and were sent again in two).
func CreateTrips(t testing.TB, db *DB) (oneTrip, stale int64) {
	t.Helper()
	if db.creates == nil {
		t.Fatal("CreateTrips: not a PostgreSQL store")
	}
	return db.creates.memo.oneTrip.Load(), db.creates.memo.stale.Load()
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

// HoldReads takes every runner of db's PostgreSQL page reads: the pages of
// invoices asked for meanwhile queue up until release(n), which waits for n of
// them and runs the queue, so they share one round trip (at most maxPGReads).
// rounds reports the round trips made so far.
func HoldReads(t testing.TB, db *DB) (release func(n int), rounds func() int64) {
	t.Helper()
	p := db.reads
	if p == nil {
		t.Fatal("HoldReads: not a PostgreSQL store")
	}
	p.mu.Lock()
	held := p.runners - p.running
	p.running = p.runners
	p.mu.Unlock()
	return func(n int) {
			t.Helper()
			WaitReadsQueued(t, db, n)
			p.mu.Lock()
			p.running -= held - 1 // the runners held but the one that drains the queue
			p.mu.Unlock()
			go p.drain(p.take())
		}, func() int64 {
			return p.rounds.Load()
		}
}

// WaitReadsQueued waits until n pages of invoices wait for a runner of db's
// PostgreSQL reads.
func WaitReadsQueued(t testing.TB, db *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); db.reads.queued() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages queued, want %d", db.reads.queued(), n)
		}
	}
}

// queued returns how many pages wait for a runner.
func (p *pgReads) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// ReadPages reads, in one PostgreSQL round trip, a page of merchantID's invoices
// for each condition (SQL over the invoices' columns, or "" for none); it returns
// each page's invoice ids and error, and the round trips made.
func ReadPages(t testing.TB, db *DB, merchantID int64, conds []string) ([][]string, []error, int64) {
	t.Helper()
	batch := make([]*pageRead, len(conds))
	for i, c := range conds {
		if c != "" {
			c = " AND " + c
		}
		q := "SELECT " + invoiceColumns + " FROM invoices WHERE merchant_id = $1" + c + " ORDER BY created_at DESC, id DESC LIMIT 11"
		batch[i] = &pageRead{q: invoicePage{query: q, args: []any{merchantID}, limit: 10}, now: time.Now(), done: make(chan struct{})}
	}
	before := db.reads.rounds.Load()
	db.reads.run(batch)
	ids, errs := make([][]string, len(batch)), make([]error, len(batch))
	for i, r := range batch {
		<-r.done
		errs[i] = r.err
		for _, inv := range r.out {
			ids[i] = append(ids[i], inv.ID)
		}
	}
	return ids, errs, db.reads.rounds.Load() - before
}

// AfterPasswordCheck makes db's Login run f after a right password, before it
// reads the merchant: a credential change can land there deterministically.
func AfterPasswordCheck(db *DB, f func()) { db.afterPasswordCheck = f }

// ScanDescriptions returns the ids of the merchant's invoices whose description
// holds q by the search's own condition (descriptionLike), with no index:
// PostgreSQL runs it with index scans off.
func ScanDescriptions(t testing.TB, db *DB, merchantID int64, q string) []string {
	t.Helper()
	ctx := context.Background()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if db.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off"); err != nil {
			t.Fatal(err)
		}
	}
	w := &where{}
	w.add("merchant_id = %s", merchantID)
	w.conds = append(w.conds, db.descriptionLike(w, strings.ToLower(strings.TrimSpace(q))))
	rows, err := tx.QueryContext(ctx, "SELECT id FROM invoices"+w.String()+" ORDER BY created_at DESC, id DESC", w.args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// ExecForTest runs a statement on db's writer.
func ExecForTest(t testing.TB, db *DB, query string, args ...any) {
	t.Helper()
	if _, err := db.w.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatal(err)
	}
}

// HasIndex says whether PostgreSQL's current schema has the index name.
func HasIndex(t testing.TB, db *DB, name string) bool {
	t.Helper()
	var n int
	if err := db.r.QueryRowContext(context.Background(),
		"SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// EffectiveStatuses returns the effective status at now of each of the merchant's
// invoices as effectiveStatusSQL computes it, the SQL lists, filters and totals use.
func EffectiveStatuses(t testing.TB, db *DB, merchantID int64, now time.Time) map[string]kassa.InvoiceStatus {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(),
		"SELECT id, "+effectiveStatusSQL("$2")+" FROM invoices WHERE merchant_id = $1", merchantID, micros(now))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]kassa.InvoiceStatus{}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			t.Fatal(err)
		}
		out[id] = kassa.InvoiceStatus(status)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// SetDescriptionLimits sets, until the test ends, how many candidates SQLite's
// description index may hand to a list and how many unindexed invoices a search
// scans beside it.
func SetDescriptionLimits(t testing.TB, candidates int, tail int64) {
	t.Helper()
	wasC, wasT := maxDescriptionCandidates, maxUnindexedTail
	maxDescriptionCandidates, maxUnindexedTail = candidates, tail
	t.Cleanup(func() { maxDescriptionCandidates, maxUnindexedTail = wasC, wasT })
}

// CheckDescriptionIndex runs FTS5's integrity check of SQLite's description index
// against the invoices it has passed (nothing on PostgreSQL) and returns its error.
func CheckDescriptionIndex(db *DB) error {
	if db.engine != EngineSQLite {
		return nil
	}
	// The check compares the index with every row of invoices, indexed or not: it
	// holds only when the index has caught up.
	_, err := db.w.ExecContext(context.Background(),
		"INSERT INTO invoice_descriptions (invoice_descriptions, rank) VALUES ('integrity-check', 1)")
	return err
}

// ResetDescriptionIndex empties SQLite's description index, as before its first
// round.
func ResetDescriptionIndex(t testing.TB, db *DB) {
	t.Helper()
	ExecForTest(t, db, "INSERT INTO invoice_descriptions (invoice_descriptions) VALUES ('delete-all')")
	ExecForTest(t, db, "UPDATE invoice_descriptions_indexed SET through = 0")
}
