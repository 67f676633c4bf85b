package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kassapay/kassa"
)

// TestCheckpointer checks that commits are copied from the WAL into the database
// file beside the writer: the checkpointer runs only after commits, and a run
// copies every frame no reader holds (here: all of them).
func TestCheckpointer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db, c, _ := checkpointFixture(t)
		if db.ckpt == nil || db.ckpt.every != checkpointEvery {
			t.Fatalf("Open started checkpointer %+v", db.ckpt)
		}
		time.Sleep(time.Minute) // thousands of the fixture's ticks, on the bubble's clock
		synctest.Wait()
		if n := c.runs.Load(); n != 0 {
			t.Fatalf("%d checkpoints with nothing committed", n)
		}
		createInvoices(t, db, checkpointMerchant(t, db), 20)
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if c.runs.Load() > 0 && c.frames.Load() > 0 && c.copied.Load() == c.frames.Load() {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("after %d checkpoints the WAL holds %d frames, %d copied", c.runs.Load(), c.frames.Load(), c.copied.Load())
			}
		}
	})
}

// TestCheckpointerCatchesUp checks that frames a reader's snapshot kept from a
// checkpoint are copied once the reader ends, with nothing committed after: a run
// that left frames behind is tried again at the next tick.
func TestCheckpointerCatchesUp(t *testing.T) {
	ctx := context.Background()
	db, c, path := checkpointFixture(t)
	p := checkpointMerchant(t, db)
	createInvoices(t, db, p, 5)
	// A reader whose snapshot is taken now, before the next commits.
	rdb := openSQLiteDB(path + "?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	defer rdb.Close()
	rtx, err := rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	var before int
	if err := rtx.QueryRowContext(ctx, "SELECT COUNT(*) FROM invoices").Scan(&before); err != nil {
		t.Fatal(err)
	}
	createInvoices(t, db, p, 20)
	// Runs after the last commit cannot copy what the reader may still read, and
	// go on while they cannot.
	runs := c.runs.Load()
	for end := time.Now().Add(10 * time.Second); c.runs.Load() < runs+2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d checkpoints in 10 s after the last commit, with frames left behind", c.runs.Load()-runs)
		}
	}
	if !c.behind() {
		t.Fatalf("with a reader's snapshot held the WAL's %d frames were all copied (%d)", c.frames.Load(), c.copied.Load())
	}
	var still int
	if err := rtx.QueryRowContext(ctx, "SELECT COUNT(*) FROM invoices").Scan(&still); err != nil || still != before {
		t.Fatalf("reader saw %d invoices, then %d (%v)", before, still, err)
	}
	if err := rtx.Rollback(); err != nil {
		t.Fatal(err)
	}
	groups := db.group.groups.Load()
	for end := time.Now().Add(10 * time.Second); c.behind(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after %d checkpoints the WAL holds %d frames, %d copied", c.runs.Load(), c.frames.Load(), c.copied.Load())
		}
	}
	if g := db.group.groups.Load(); g != groups {
		t.Fatalf("%d commits while the checkpointer caught up; the test needs none", g-groups)
	}
}

// checkpointFixture opens a SQLite store in a new temporary dir and starts a
// second checkpointer on its file at a test's pace (10 ms), whose runs a test can
// tell apart from the store's own. It returns both and the database file's path.
func checkpointFixture(t *testing.T) (*DB, *checkpointer, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(context.Background(), Config{DataDir: dir, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	path := filepath.Join(dir, "kassa.db")
	c, err := startCheckpointer(path, 10*time.Millisecond, db.group.groups.Load, db.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop() })
	return db, c, path
}

// checkpointMerchant creates a merchant and returns its devnet principal.
func checkpointMerchant(t *testing.T, db *DB) kassa.Principal {
	t.Helper()
	m, err := db.CreateMerchant(context.Background(), kassa.MerchantCreate{Name: "Shop", Email: "ckpt@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	return kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet}
}

// createInvoices creates n invoices, each its own commit when nothing else writes.
func createInvoices(t *testing.T, db *DB, p kassa.Principal, n int) {
	t.Helper()
	for range n {
		if _, _, err := db.CreateInvoice(context.Background(), p, kassa.InvoiceCreate{Amount: 100}, nil); err != nil {
			t.Fatal(err)
		}
	}
}
