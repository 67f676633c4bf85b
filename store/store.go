// Package store keeps Kassa's data in SQLite (embedded, the default) or PostgreSQL.
// DB implements the store side of the domain's interfaces and of those its
// consumers declare. Those the store can name are asserted at compile time at the
// top of their files: kassa.MerchantService (merchant.go), apikeys.Store
// (apikey.go), EventService (event.go), PaymentService (invoicepayment.go),
// PayorService (payor.go), endpoints.Store (webhook.go), secondfactor.Store
// (secondfactor.go), signin.Throttle (signin.go), invoicing.Store (invoice.go),
// payment.PaymentAddressService (paymentaddress.go),
// settlement.SettlementService (settlement.go), report.OverviewStats
// (overview.go) and commerce.OrderStore (order.go). Those of the packages the
// store cannot import (chain, webhook, api/httpx: their tests run on the store),
// and those of merchants, refund, signin (DashboardSessionStore) and worker, are
// asserted in cmd/kassa/storeroles.go.
//
// The SQL is shared where the two engines agree (both bind $1..$n by number);
// migrations, error translation and row locking are per engine (migrate.go,
// sqlvalues.go). Every change is written with its event in one transaction; the three
// leased queues claim through one helper (lease.go).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/sealed"
)

// Engine names as returned by DB.Engine.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// Config says which engine to open.
type Config struct {
	// DataDir holds the SQLite file DataDir/kassa.db when DatabaseURL is empty;
	// the directory is made 0700 and the database files 0600 (privateFiles).
	DataDir string
	// SQLiteMmapSize is how many bytes of the SQLite file each connection maps
	// into memory (PRAGMA mmap_size); 0 maps nothing and reads with pread. Mapped
	// pages count in the process's resident memory (serve --sqlite-mmap-mib).
	SQLiteMmapSize int64
	// SQLiteSerialized opens SQLite connections in SQLite's serialized mode, as
	// modernc's driver ships them, instead of multi-thread mode without a
	// connection mutex (internal/sqlitemt; serve --sqlite-serialized).
	SQLiteSerialized bool
	// DatabaseURL "postgres://..." or "postgresql://..." selects PostgreSQL; ""
	// selects SQLite.
	DatabaseURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PasswordCost is the bcrypt cost; 0 means bcrypt.DefaultCost.
	PasswordCost int
	// Secrets seals the secrets the store keeps (webhook signing secrets, second
	// factors) and opens them. A store opened without it reads secrets in clear
	// only, and fails to write or open sealed ones.
	Secrets *sealed.Keyring
	// Log receives the PostgreSQL listener's losses and recoveries of its
	// connection; nil: they are not logged.
	Log *slog.Logger
	// Observer is told what committed transactions changed (metrics); nil: nobody.
	Observer Observer
}

// DB is the store: persistence only, the rules are the services' (see the package
// comment for the interfaces it implements). It is safe for concurrent use.
type DB struct {
	engine string
	// w runs every transaction and write. On SQLite it has one connection, so
	// writers queue in Go instead of failing with SQLITE_BUSY.
	w *pool
	// r runs read-only queries outside transactions. On PostgreSQL it is w.
	r    *pool
	now  func() time.Time
	cost int
	// secrets seals and opens stored secrets (secrets.go); nil: none.
	secrets *sealed.Keyring
	// log gets the listener's connection changes (pgnotify.go).
	log *slog.Logger
	// observer is told what committed transactions changed (observe.go); nil: nobody.
	observer Observer

	// keys caches authenticated API key rows for a short time.
	keys *keyCache
	// merchants are the rows the invoice create path reads (InvoiceMerchant).
	merchants *merchantCache
	// group batches SQLite write transactions into shared commits; nil on PostgreSQL.
	group *groupCommit
	// ckpt checkpoints SQLite's WAL beside the writer (checkpoint.go); nil on PostgreSQL.
	ckpt *checkpointer
	// creates batches invoice creates into shared PostgreSQL transactions
	// (pgbatch.go); nil on SQLite.
	creates *pgBatcher
	// reads sends the pages of invoices asked for together in one PostgreSQL
	// round trip (pgreads.go); nil on SQLite.
	reads *pgReads

	// commits wakes in-process followers after write transactions commit;
	// deliveries, the webhook worker after those that queued deliveries.
	commits, deliveries notifier
	// pg carries wake-ups and key revocations to and from other instances on the
	// same PostgreSQL database (pgnotify.go); nil on SQLite.
	pg *pgNotify
	// stats counts committed transactions and wake-ups (Stats).
	stats struct{ transactions, wakes atomic.Int64 }

	dummyOnce sync.Once
	dummyHash []byte
	// afterPasswordCheck, when set (tests only), runs in Login between the
	// password check and the merchant's read.
	afterPasswordCheck func()
}

// Compile-time checks that DB provides the domain services.
var (
	_ kassa.MerchantService = (*DB)(nil)
	_ apikeys.Store         = (*DB)(nil)
)

// Open opens the engine cfg selects, applies the embedded migrations and returns a
// store ready to use.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	db := &DB{now: cfg.Now, cost: cfg.PasswordCost, keys: newKeyCache(), merchants: newMerchantCache(), secrets: cfg.Secrets, log: cfg.Log,
		observer: cfg.Observer}
	if db.log == nil {
		db.log = slog.New(slog.DiscardHandler)
	}
	if db.now == nil {
		db.now = time.Now
	}
	if db.cost == 0 {
		db.cost = bcrypt.DefaultCost
	}
	var err error
	switch {
	case cfg.DatabaseURL == "":
		err = db.openSQLite(ctx, cfg.DataDir, cfg.SQLiteMmapSize, !cfg.SQLiteSerialized)
	case strings.HasPrefix(cfg.DatabaseURL, "postgres://"), strings.HasPrefix(cfg.DatabaseURL, "postgresql://"):
		err = db.openPostgres(ctx, cfg.DatabaseURL)
	default:
		return nil, fmt.Errorf("store: unsupported database URL scheme (want postgres:// or postgresql://)")
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) openPostgres(ctx context.Context, dsn string) error {
	db.engine = EnginePostgres
	p, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("store: open postgres: %w", redactErr(err, dsn))
	}
	db.w = newPool(p, false)
	db.r = db.w
	p.SetMaxOpenConns(20)
	p.SetMaxIdleConns(20)
	p.SetConnMaxIdleTime(5 * time.Minute)
	if err := p.PingContext(ctx); err != nil {
		return fmt.Errorf("store: connect postgres: %w", redactErr(err, dsn))
	}
	if err := db.migrate(ctx); err != nil {
		return err
	}
	if err := db.startNotify(ctx, dsn); err != nil {
		return fmt.Errorf("store: start listener: %w", redactErr(err, dsn))
	}
	db.creates = newPGBatcher(db, true)
	db.reads = newPGReads(db)
	return nil
}

// redactErr keeps a password in the DSN out of error messages.
func redactErr(err error, dsn string) error {
	u, perr := url.Parse(dsn)
	if perr != nil || u.User == nil {
		return err
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
	}
	return err
}

// Close stops the PostgreSQL listener and closes the connection pools.
func (db *DB) Close() error {
	var errs []error
	if db.creates != nil {
		db.creates.stop()
	}
	if db.pg != nil {
		db.pg.stop()
	}
	if db.group != nil {
		db.group.stop()
	}
	if db.ckpt != nil {
		errs = append(errs, db.ckpt.stop())
	}
	if db.r != nil && db.r != db.w {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	return errors.Join(errs...)
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.w.PingContext(ctx); err != nil {
		return err
	}
	if db.r != db.w {
		var one int
		return db.r.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	}
	return nil
}

// Engine returns "sqlite" or "postgres".
func (db *DB) Engine() string { return db.engine }

// Now is the store's clock: clock, for the services above the store.
func (db *DB) Now() time.Time { return db.clock() }

// clock returns the current time in UTC, truncated to the microsecond the columns keep,
// so values returned to callers equal what a later read gives back.
func (db *DB) clock() time.Time {
	return db.now().UTC().Truncate(time.Microsecond)
}

// forUpdate is the row-locking suffix for a SELECT inside a transaction: FOR UPDATE on
// PostgreSQL; nothing on SQLite, whose single writer connection serializes writers.
func (db *DB) forUpdate() string {
	if db.engine == EnginePostgres {
		return " FOR UPDATE"
	}
	return ""
}

// write runs fn's statements as a write: on SQLite in a transaction of the group
// commit, on PostgreSQL on the pool, each statement committing by itself.
func (db *DB) write(ctx context.Context, fn func(q queryer) error) error {
	if db.group != nil {
		_, err := db.group.do(ctx, nil, nil, func(t txq) error { return fn(t) })
		return err
	}
	return fn(db.w)
}

// tx runs fn in a write transaction, committing when fn returns nil. On SQLite it
// goes through the group commit. A committed transaction that changed data wakes
// the followers (Commits); one that only read, such as a queue claim that found
// nothing due, does not, or a follower would wake itself forever.
func (db *DB) tx(ctx context.Context, fn func(tx txq) error) error {
	return db.txAnnounced(ctx, nil, fn)
}

// txAnnounced is tx for a transaction announced by announceWrite.
func (db *DB) txAnnounced(ctx context.Context, told *announcement, fn func(tx txq) error) error {
	notes := db.newNotes()
	did, err := db.runTx(ctx, notes, told, fn)
	if err == nil {
		db.committed(did)
		db.report(notes)
	}
	return err
}

// announceWrite tells SQLite's writer a transaction is being prepared and will be
// queued soon (gathering.announce): pass it to txAnnounced, and withdraw it on
// every way out that queues nothing. Nil on PostgreSQL.
func (db *DB) announceWrite() *announcement {
	if db.group == nil {
		return nil
	}
	return db.group.announce()
}

// runTx runs fn in a transaction and reports what it did (txDid); what fn
// notes for the Observer goes to notes (nil: nowhere).
func (db *DB) runTx(ctx context.Context, notes *txNotes, told *announcement, fn func(tx txq) error) (done, error) {
	if db.group != nil {
		return db.group.do(ctx, notes, told, fn)
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return done{}, fmt.Errorf("store: begin: %w", err)
	}
	var did txDid
	if err := fn(txq{Tx: tx, p: db.w, did: &did, notes: notes}); err != nil {
		_ = tx.Rollback()
		return done{}, err
	}
	if err := tx.Commit(); err != nil {
		return done{}, fmt.Errorf("store: commit: %w", err)
	}
	return did.load(), nil
}
