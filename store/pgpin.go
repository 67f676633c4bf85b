package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pinIdle is how long a pinned connection stays out of the pool with nothing to
// do. It matches pgx's check on reuse: its database/sql driver pings a connection
// handed out more than a second after it was last handed out, so a pin given back
// after a second's rest is checked before its next use.
const pinIdle = time.Second

// pgPin keeps one connection of the pool for a goroutine that writes on
// PostgreSQL one statement batch after another (the create batcher), instead of
// taking whichever connection is idle each time. On one connection every
// multi-row statement (one text per batch size) is prepared once and its plan
// cached once, and one backend's caches stay warm; taken from a pool of 20, each
// batch size was prepared and planned anew on most connections. A pin is used by
// one goroutine at a time.
type pgPin struct {
	db   *DB
	conn *sql.Conn
	used time.Time // the end of the last write
	// taken counts the connections taken from the pool and pid is the pinned
	// connection's backend (0: none): tests read them.
	taken atomic.Int64
	pid   atomic.Uint32
}

// run runs write on the pinned connection, taking one from the pool first if
// none is pinned. When write fails inside a transaction, the transaction is
// rolled back (or the connection dropped). A failure that leaves the connection
// closed or inside a transaction gives it back to the pool, and the next write
// takes one the pool has checked; after one that PostgreSQL answered and rolled
// back (a live idempotency key, changed webhook endpoints) it stays pinned.
func (p *pgPin) run(ctx context.Context, write func(c *pgx.Conn) error) error {
	if p.conn == nil {
		c, err := p.db.w.Conn(ctx)
		if err != nil {
			return fmt.Errorf("store: connection: %w", err)
		}
		p.conn = c
		p.taken.Add(1)
	}
	reusable := false
	err := p.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		p.pid.Store(pc.PgConn().PID())
		err := writeOn(ctx, pc, write)
		reusable = !pc.PgConn().IsClosed() && pc.PgConn().TxStatus() == 'I'
		return err
	})
	p.used = time.Now()
	if err != nil && (!reusable || errors.Is(err, driver.ErrBadConn)) {
		p.release()
	}
	return err
}

// idleFor reports how long the pinned connection has been unused; 0 when none is
// pinned.
func (p *pgPin) idleFor() time.Duration {
	if p.conn == nil {
		return 0
	}
	return time.Since(p.used)
}

// release gives the pinned connection back to the pool.
func (p *pgPin) release() {
	if p.conn != nil {
		_ = p.conn.Close()
		p.conn = nil
		p.pid.Store(0)
	}
}

// writeOn runs write on pc; when it fails inside a transaction, the transaction
// is rolled back, and when that fails too the connection is reported bad, so the
// pool drops it.
func writeOn(ctx context.Context, pc *pgx.Conn, write func(c *pgx.Conn) error) error {
	err := write(pc)
	if err != nil && !pc.PgConn().IsClosed() && pc.PgConn().TxStatus() != 'I' {
		if _, rerr := pc.Exec(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
			return errors.Join(err, driver.ErrBadConn)
		}
	}
	return err
}
