package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the PostgreSQL channel instances sharing a database wake each
// other on. Channels are per database, not per schema: the payload names the schema
// so stores in other schemas of the same database ignore each other.
const notifyChannel = "kassa_commits"

// Payload kinds: a write transaction committed; an API key was revoked.
const (
	notifyCommit = "c"
	notifyRevoke = "r:"
)

// notifyEvery is the shortest time between two NOTIFYs of one instance: commits
// meanwhile share the next one, so another instance hears of a commit at most this
// much later. Under a create load a NOTIFY per commit was nearly one more
// PostgreSQL transaction per create.
const notifyEvery = 5 * time.Millisecond

// listenWait bounds one wait for a notification; after it the listener pings its
// connection, so a connection that died silently is noticed.
const listenWait = 10 * time.Second

// pgNotify carries wake-ups between instances on one PostgreSQL database: after a
// commit that changed data it sends one NOTIFY (commits that happen while one is
// being sent share the next), and a connection of its own LISTENs and wakes this
// instance's followers (Commits) when another instance commits. It also drops
// revoked keys from the key cache. Polling stays the fallback when it is down.
type pgNotify struct {
	dsn    string
	id     string // this instance; its own notifications are ignored
	schema string
	poke   chan struct{}
	// sessions counts the listener's connections, down its failures since the last
	// one; only its goroutine uses them.
	sessions, down int
	// live is true while the listener is connected: only then may API key rows be
	// cached, since a revocation sent while it is down would be missed.
	live atomic.Bool
	// downSince is when the listener last failed (Unix nanoseconds), 0 while it
	// is connected or before its first failure: Warnings reports it.
	downSince atomic.Int64
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// startNotify starts the publisher and the listener of a PostgreSQL store.
func (db *DB) startNotify(ctx context.Context, dsn string) error {
	var schema string
	if err := db.r.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	n := &pgNotify{dsn: dsn, id: hex.EncodeToString(b[:]), schema: schema, poke: make(chan struct{}, 1)}
	bg, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	n.wg.Add(2)
	go func() { defer n.wg.Done(); n.publish(bg, db) }()
	go func() { defer n.wg.Done(); n.listen(bg, db) }()
	db.pg = n
	return nil
}

// stop ends both goroutines and closes the listener's connection.
func (n *pgNotify) stop() {
	n.cancel()
	n.wg.Wait()
}

// payload is what this instance sends for kind.
func (n *pgNotify) payload(kind string) string { return n.id + " " + kind + " " + n.schema }

// committed asks the publisher to notify the other instances, without waiting.
func (n *pgNotify) committed() {
	select {
	case n.poke <- struct{}{}:
	default:
	}
}

// publish sends one NOTIFY per wake-up, at most one per notifyEvery; errors are
// dropped, as the other instances still poll.
func (n *pgNotify) publish(ctx context.Context, db *DB) {
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.poke:
		}
		_, _ = db.w.ExecContext(ctx, "SELECT pg_notify($1, $2)", notifyChannel, n.payload(notifyCommit))
		pause.Reset(notifyEvery)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// listen keeps a LISTEN connection open, reconnecting with backoff from 100 ms to
// 5 s when it drops.
func (n *pgNotify) listen(ctx context.Context, db *DB) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		began := time.Now()
		err := n.session(ctx, db)
		if err == nil {
			err = errors.New("connection closed")
		}
		n.live.Store(false)
		db.keys.clear()
		if ctx.Err() != nil {
			return
		}
		n.downSince.CompareAndSwap(0, time.Now().UnixNano())
		if n.down++; n.down == 1 || n.down%100 == 0 {
			db.log.Warn("postgres listener down: other instances' events arrive by polling until it is back",
				"err", redactErr(err, n.dsn).Error(), "attempts", n.down)
		}
		if time.Since(began) > time.Minute {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// session connects, listens and handles notifications until the connection fails
// or ctx ends.
func (n *pgNotify) session(ctx context.Context, db *DB) error {
	cfg, err := pgx.ParseConfig(n.dsn)
	if err != nil {
		return err
	}
	// Named in pg_stat_activity, so an operator (or a test) can tell it apart.
	cfg.RuntimeParams["application_name"] = "kassa listen " + n.schema
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// Revocations and commits may have been missed while disconnected (the first
	// session follows Open, before which no follower waited).
	db.keys.clear()
	n.live.Store(true)
	n.downSince.Store(0)
	if n.sessions++; n.sessions > 1 {
		db.commits.signal()
		db.deliveries.signal()
		db.log.Info("postgres listener back", "failed_attempts", n.down)
	}
	n.down = 0
	for {
		wctx, cancel := context.WithTimeout(ctx, listenWait)
		note, err := conn.WaitForNotification(wctx)
		timedOut := wctx.Err() != nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil:
			n.handle(db, note.Payload)
		case timedOut && !conn.IsClosed():
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// handle acts on one notification: another instance's commit wakes the followers,
// the webhook worker too (the commit may have queued deliveries; the NOTIFY does
// not say); a revocation drops the key from the cache.
func (n *pgNotify) handle(db *DB, payload string) {
	id, rest, _ := strings.Cut(payload, " ")
	kind, schema, _ := strings.Cut(rest, " ")
	if schema != n.schema {
		return
	}
	if prefix, ok := strings.CutPrefix(kind, notifyRevoke); ok {
		db.keys.forget(prefix)
		return
	}
	if id != n.id {
		db.commits.signal()
		db.deliveries.signal()
	}
}

// Warnings says what an operator should know about this store while it still
// serves, for /readyz: on PostgreSQL, that the listener is down (this instance
// polls for other instances' commits and reads API keys on every request).
func (db *DB) Warnings() []string {
	if db.pg == nil {
		return nil
	}
	since := db.pg.downSince.Load()
	if since == 0 {
		return nil
	}
	return []string{fmt.Sprintf("postgres listener down since %s: other instances' events arrive by polling and API keys are read on every request until it is back",
		time.Unix(0, since).UTC().Format(time.RFC3339))}
}
