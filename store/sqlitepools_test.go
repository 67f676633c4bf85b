package store

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/sqlitemt"
	"github.com/kassapay/kassa/invoicing"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sync/errgroup"
)

// TestSQLiteSerialized: the writer's and the readers' connections run without a
// connection mutex by default and with one under Config.SQLiteSerialized, and the
// store gives the same answers both ways while invoices are written and listed
// at once (internal/sqlitemt).
func TestSQLiteSerialized(t *testing.T) {
	var lists [][]string
	for _, serialized := range []bool{false, true} {
		t.Run(fmt.Sprint("serialized=", serialized), func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, Config{DataDir: t.TempDir(), SQLiteSerialized: serialized, PasswordCost: bcrypt.MinCost})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			for name, pool := range map[string]*pool{"writer": db.w, "reader": db.r} {
				if got, err := sqlitemt.Serialized(ctx, pool.DB); err != nil || got != serialized {
					t.Errorf("%s: serialized %v (%v), want %v", name, got, err, serialized)
				}
			}
			lists = append(lists, writeAndList(t, db))
		})
	}
	if len(lists) == 2 && fmt.Sprint(lists[0]) != fmt.Sprint(lists[1]) {
		t.Errorf("the modes listed differently:\n%v\n%v", lists[0], lists[1])
	}
}

// writeAndList inserts 40 invoices from 4 goroutines while 4 others list, then
// returns each listed invoice's amount and status, sorted.
func writeAndList(t *testing.T, db *DB) []string {
	t.Helper()
	ctx := context.Background()
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Modes", Email: "modes@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
	f := kassa.InvoiceFilter{MerchantID: m.ID, Limit: 100}
	var g errgroup.Group
	for k := range 4 {
		g.Go(func() error {
			for i := range 10 {
				c := kassa.InvoiceCreate{Amount: kassa.Millis((k*10 + i + 1) * 1000)}
				if _, _, err := invoicing.Over(db).CreateInvoice(ctx, p, c, nil); err != nil {
					return err
				}
			}
			return nil
		})
		g.Go(func() error {
			for range 10 {
				if _, _, err := db.Invoices(ctx, f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	invs, _, err := db.Invoices(ctx, f)
	if err != nil || len(invs) != 40 {
		t.Fatalf("listed %d invoices (%v), want 40", len(invs), err)
	}
	var out []string
	for _, inv := range invs {
		out = append(out, fmt.Sprint(inv.Amount, inv.Status))
	}
	slices.Sort(out)
	return out
}

// TestSQLiteCommitsSynced: the writer syncs the WAL at every commit
// (synchronous=FULL), so an answered write survives a power cut.
func TestSQLiteCommitsSynced(t *testing.T) {
	db := openSQLite(t)
	for pragma, want := range map[string]string{"synchronous": "2", "journal_mode": "wal"} {
		var got string
		if err := db.w.QueryRowContext(context.Background(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("writer's %s = %s, want %s", pragma, got, want)
		}
	}
}
