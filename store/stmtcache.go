package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// maxCachedStmts bounds the prepared statement cache; queries past it run unprepared.
const maxCachedStmts = 256

// pool is a connection pool that, on SQLite, prepares each query text once and reuses
// the statement: parsing SQL was a sixth of the CPU time of an invoice create. On
// PostgreSQL pgx caches prepared statements per connection by itself, so pool only
// passes queries through.
type pool struct {
	*sql.DB
	cache     bool
	endpoints *endpointCache // SQLite's writer: see endpointCache; nil elsewhere

	mu      sync.RWMutex
	stmts   map[string]*sql.Stmt
	pending map[string]bool // queued for preparing once a transaction frees the connection
}

func newPool(db *sql.DB, cache bool) *pool {
	return &pool{DB: db, cache: cache, stmts: map[string]*sql.Stmt{}, pending: map[string]bool{}}
}

// stmt returns the cached statement for query, preparing it first, or nil when the
// query runs unprepared.
func (p *pool) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := p.cached(query); st != nil || !ok {
		return st
	}
	return p.prepare(ctx, query)
}

// cached returns the statement for query if it is prepared; ok is false when the
// query is not to be prepared (no caching, or the cache is full).
func (p *pool) cached(query string) (st *sql.Stmt, ok bool) {
	if !p.cache {
		return nil, false
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	st = p.stmts[query]
	return st, st != nil || len(p.stmts) < maxCachedStmts
}

func (p *pool) prepare(ctx context.Context, query string) *sql.Stmt {
	// No lock is held while preparing: on SQLite's single writer connection the
	// prepare waits for any open transaction, which may itself look in the cache.
	st, err := p.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil // the unprepared call reports the error
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.stmts[query]; old != nil || len(p.stmts) >= maxCachedStmts {
		st.Close()
		return old
	}
	p.stmts[query] = st
	return st
}

// txStmt returns the cached statement for a query run inside a transaction. A miss
// runs unprepared this time: preparing needs a connection from the pool, and on
// SQLite the transaction holds the only writer connection, so the statement is
// prepared in the background once the transaction has let it go.
func (p *pool) txStmt(query string) *sql.Stmt {
	st, ok := p.cached(query)
	if st != nil || !ok {
		return st
	}
	p.mu.Lock()
	queued := p.pending[query]
	p.pending[query] = true
	p.mu.Unlock()
	if !queued {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			p.prepare(ctx, query)
			p.mu.Lock()
			delete(p.pending, query)
			p.mu.Unlock()
		}()
	}
	return nil
}

// ExecContext runs a statement that returns no rows.
func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	p.endpoints.statement(query)
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.DB.ExecContext(ctx, query, args...)
}

// QueryContext runs a query that returns rows.
func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query that returns at most one row.
func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.DB.QueryRowContext(ctx, query, args...)
}

// Close closes the cached statements and the pool.
func (p *pool) Close() error {
	p.mu.Lock()
	for _, st := range p.stmts {
		st.Close()
	}
	p.stmts = map[string]*sql.Stmt{}
	p.mu.Unlock()
	return p.DB.Close()
}

// txq runs a transaction's queries through the pool's cached statements.
type txq struct {
	*sql.Tx
	p        *pool
	detached bool // statements ignore the caller's cancellation (group commit)
	// did, when not nil, records what the transaction did that decides whom its
	// commit wakes (notify.go): did.data is set once a statement may have changed
	// data (an Exec that affected rows, or a query that is not a SELECT); a
	// transaction that never sets it wrote nothing, and its commit wakes no follower.
	did *txDid
	// notes, when not nil, collects what the Observer is told once the
	// transaction commits (observe.go).
	notes *txNotes
}

// ctx returns the context a statement runs with.
func (t txq) ctx(ctx context.Context) context.Context {
	if t.detached {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// ExecContext runs a statement that returns no rows inside the transaction.
func (t txq) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.p.endpoints.statement(query)
	ctx = t.ctx(ctx)
	var (
		res sql.Result
		err error
	)
	if st := t.p.txStmt(query); st != nil {
		res, err = t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	} else {
		res, err = t.Tx.ExecContext(ctx, query, args...)
	}
	if err == nil && t.did != nil {
		if n, rerr := res.RowsAffected(); rerr != nil || n > 0 {
			t.did.data.Store(true)
		}
	}
	return res, err
}

// QueryContext runs a query that returns rows inside the transaction.
func (t txq) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.noteQuery(query)
	ctx = t.ctx(ctx)
	if st := t.p.txStmt(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query that returns at most one row inside the transaction.
func (t txq) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.noteQuery(query)
	ctx = t.ctx(ctx)
	if st := t.p.txStmt(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}

// noteQuery marks the transaction as written when query may change data: anything
// but a SELECT (an INSERT ... RETURNING, say) counts, whether or not it did.
// A query that names webhook_endpoints and is not a SELECT empties the writer's
// endpointCache.
func (t txq) noteQuery(query string) {
	t.p.endpoints.statement(query)
	if t.did != nil && !isSelect(query) {
		t.did.data.Store(true)
	}
}
