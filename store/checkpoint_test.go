package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kassa"
)

// TestCheckpointer checks that commits are copied from the WAL into the database
// file beside the writer: the checkpointer runs only after commits, and a run
// copies every frame no reader holds (here: all of them).
func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, Config{DataDir: dir, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.ckpt == nil || db.ckpt.every != checkpointEvery {
		t.Fatalf("Open started checkpointer %+v", db.ckpt)
	}
	// A second checkpointer on the same file, at a test's pace, whose runs this
	// test can tell apart from the store's own.
	c, err := startCheckpointer(filepath.Join(dir, "kassa.db"), 10*time.Millisecond, db.group.groups.Load, db.log)
	if err != nil {
		t.Fatal(err)
	}
	defer c.stop()
	time.Sleep(50 * time.Millisecond)
	if n := c.runs.Load(); n != 0 {
		t.Fatalf("%d checkpoints with nothing committed", n)
	}
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "ckpt@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet}
	for range 20 {
		if _, _, err := db.CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 100}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if c.runs.Load() > 0 && c.frames.Load() > 0 && c.copied.Load() == c.frames.Load() {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("after %d checkpoints the WAL holds %d frames, %d copied", c.runs.Load(), c.frames.Load(), c.copied.Load())
		}
	}
}
