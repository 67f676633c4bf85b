package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestSnapshot: on SQLite a snapshot taken while the store is open is a
// complete database (0600) that opens as a store of its own, with the data
// written before it; PostgreSQL refuses (pg_dump backs it up).
func TestSnapshot(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1_000, nil)
		dir := t.TempDir()
		path := filepath.Join(dir, "kassa.db")
		err := f.db.Snapshot(f.ctx, path)
		if f.db.Engine() == store.EnginePostgres {
			if !errors.Is(err, store.ErrSnapshotEngine) {
				t.Fatalf("snapshot on PostgreSQL: %v", err)
			}
			return
		}
		must(t, err)
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("snapshot file: %v, %v", st, err)
		}
		if err := f.db.Snapshot(f.ctx, path); err == nil {
			t.Fatal("a second snapshot over the first was not refused")
		}
		f.invoice(t, f.m, 2_000, nil) // after the snapshot: not in it
		restored, err := store.Open(f.ctx, store.Config{DataDir: dir})
		must(t, err)
		defer restored.Close()
		must(t, restored.IntegrityCheck(f.ctx))
		if _, err := restored.Invoice(f.ctx, f.m.ID, inv.ID); err != nil {
			t.Fatalf("the invoice written before the snapshot: %v", err)
		}
		n, err := restored.CountInvoices(f.ctx, kassaFilter(f.m.ID))
		must(t, err)
		if n != 1 {
			t.Fatalf("the snapshot holds %d invoices, want the 1 written before it", n)
		}
	})
}

// kassaFilter selects every invoice of a merchant.
func kassaFilter(merchantID int64) kassa.InvoiceFilter {
	return kassa.InvoiceFilter{MerchantID: merchantID}
}
