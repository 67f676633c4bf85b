package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the size of the database
	_ "modernc.org/sqlite"             // the "sqlite" driver, for the size of the file

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
)

// measure times the dashboard's reads of seed-1's invoices, each rounds times
// after 5 untimed (1 for a read of over a second; fewer rounds, at least 3,
// when they take over 20 s), and prints
// p50, p99 and the rounds of each (only those whose name holds only), then the bytes per invoice
// (rounds 0: only those).
func measure(ctx context.Context, cfg store.Config, rounds int, only string) error {
	db, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if rounds <= 0 {
		return diskPerInvoice(ctx, cfg)
	}
	if err := catchUp(ctx, db); err != nil {
		return err
	}
	m, err := db.MerchantByEmail(ctx, seedEmail(1))
	if err != nil {
		return err
	}
	env := kassa.Devnet
	// The seeded span: a seed stopped early ends before today, so the reads are
	// placed in it rather than before the clock.
	oldest, now, err := seededSpan(ctx, cfg, m.ID)
	if err != nil {
		return err
	}
	span := now.Sub(oldest)
	all := kassa.InvoiceFilter{MerchantID: m.ID, Environment: &env, Limit: 25}
	half := oldest.Add(span / 2)
	mid, _, err := db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Environment: &env, CreatedLTE: &half, Limit: 1})
	if err != nil || len(mid) == 0 {
		return fmt.Errorf("no invoice in the middle of the seeded span: %v", err)
	}
	from := oldest.Add(span * 2 / 3)
	to := from.Add(span / 12)
	with := func(edit func(f *kassa.InvoiceFilter)) kassa.InvoiceFilter { f := all; edit(&f); return f }
	list := func(f kassa.InvoiceFilter) func() (int, error) {
		return func() (int, error) { out, _, err := db.Invoices(ctx, f); return len(out), err }
	}
	queries := []struct {
		name string
		run  func() (int, error)
	}{
		{"first page", list(all)},
		{"page behind a cursor half the span back", list(with(func(f *kassa.InvoiceFilter) { f.StartingAfter = mid[0].ID }))},
		{"status=paid, a 12th of the span", list(with(func(f *kassa.InvoiceFilter) {
			f.Statuses, f.CreatedGTE, f.CreatedLTE = []kassa.InvoiceStatus{kassa.StatusPaid}, &from, &to
		}))},
		{"needs attention, first page", list(with(func(f *kassa.InvoiceFilter) { f.NeedsAttention = true }))},
		{"q=" + rareWord + " (1 invoice in a million)", list(with(func(f *kassa.InvoiceFilter) { f.Query = rareWord }))},
		{"q=order 123460: (1 invoice)", list(with(func(f *kassa.InvoiceFilter) { f.Query = "order 123460:" }))},
		{"q=teapot (about 1 in 23)", list(with(func(f *kassa.InvoiceFilter) { f.Query = "teapot" }))},
		{"q=café (about 1 in 60)", list(with(func(f *kassa.InvoiceFilter) { f.Query = "café" }))},
		{"q=zz (below trigram length, no match)", list(with(func(f *kassa.InvoiceFilter) { f.Query = "zz" }))},
		{"dashboard overview (its store reads)", func() (int, error) { return overview(ctx, db, m.ID, env, now) }},
		{"overview: volume by day (30 days)", func() (int, error) {
			days, err := db.VolumeByDay(ctx, m.ID, env, now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -29))
			return len(days), err
		}},
		{"overview: invoice totals by status", func() (int, error) {
			_, err := db.InvoiceTotals(ctx, kassa.InvoiceTotalsFilter{MerchantID: m.ID, Environment: &env})
			return 1, err
		}},
		{"overview: count needing attention", func() (int, error) {
			n, err := db.CountInvoices(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Environment: &env, NeedsAttention: true})
			return int(n), err
		}},
	}
	for _, q := range queries {
		if !strings.Contains(q.name, only) {
			continue
		}
		var took []time.Duration
		var rows int
		began, warm := time.Now(), 5
		for r := 0; r < rounds+warm && (r < warm+3 || time.Since(began) < 20*time.Second); r++ {
			start := time.Now()
			n, err := q.run()
			if err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			if r == 0 && time.Since(start) > time.Second {
				warm = 1 // a read of seconds is warm after one
			}
			if r >= warm {
				took = append(took, time.Since(start))
			}
			rows = n
		}
		slices.Sort(took)
		fmt.Printf("| %s | %d | %s | %s | %d |\n", q.name, rows, ms(took[len(took)/2]), ms(took[(len(took)*99-1)/100]), len(took))
	}
	return diskPerInvoice(ctx, cfg)
}

// overview makes the store reads of the dashboard's overview (api/dashboard
// overview.go) in its order and returns the rows of its recent list.
func overview(ctx context.Context, db *store.DB, merchantID int64, env kassa.Environment, now time.Time) (int, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	if _, err := db.VolumeByDay(ctx, merchantID, env, today.AddDate(0, 0, -29)); err != nil {
		return 0, err
	}
	if _, err := db.InvoiceTotals(ctx, kassa.InvoiceTotalsFilter{MerchantID: merchantID, Environment: &env}); err != nil {
		return 0, err
	}
	if _, err := db.CountInvoices(ctx, kassa.InvoiceFilter{MerchantID: merchantID, Environment: &env, NeedsAttention: true}); err != nil {
		return 0, err
	}
	if _, err := db.FailingDeliveries(ctx, merchantID, env, now.AddDate(0, 0, -7)); err != nil {
		return 0, err
	}
	recent, _, err := db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: merchantID, Environment: &env, Limit: 5})
	return len(recent), err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// diskPerInvoice prints the database's size on disk and its bytes per invoice:
// SQLite the pages in use after a checkpoint, PostgreSQL pg_database_size.
func diskPerInvoice(ctx context.Context, cfg store.Config) error {
	raw, err := openRaw(cfg)
	if err != nil {
		return err
	}
	defer raw.Close()
	var n, size, invoices int64
	if err := raw.QueryRowContext(ctx, "SELECT COUNT(*) FROM invoices").Scan(&n); err != nil {
		return err
	}
	if cfg.DatabaseURL != "" {
		err = raw.QueryRowContext(ctx, "SELECT pg_database_size(current_database()), pg_total_relation_size('invoices')").Scan(&size, &invoices)
	} else {
		if _, err = raw.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err == nil {
			err = raw.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()),
				(SELECT page_size FROM pragma_page_size())`).Scan(&size, &invoices)
			size *= invoices
			invoices = 0
		}
	}
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Println("| bytes on disk | 0 invoices | | |")
		return nil
	}
	fmt.Printf("| bytes on disk | %d invoices | %.2f GB | %d B an invoice |\n", n, float64(size)/1e9, size/n)
	if invoices > 0 {
		fmt.Printf("| the invoices table with its indexes and TOAST | | %.2f GB | %d B an invoice |\n", float64(invoices)/1e9, invoices/n)
	}
	return nil
}

// seededSpan is the creation times of the merchant's oldest and newest invoices.
func seededSpan(ctx context.Context, cfg store.Config, merchantID int64) (oldest, newest time.Time, err error) {
	raw, err := openRaw(cfg)
	if err != nil {
		return oldest, newest, err
	}
	defer raw.Close()
	var lo, hi int64
	err = raw.QueryRowContext(ctx, "SELECT MIN(created_at), MAX(created_at) FROM invoices WHERE merchant_id = $1", merchantID).Scan(&lo, &hi)
	return time.UnixMicro(lo), time.UnixMicro(hi), err
}

// openRaw opens the store's database past the store.
func openRaw(cfg store.Config) (*sql.DB, error) {
	if cfg.DatabaseURL != "" {
		return sql.Open("pgx", cfg.DatabaseURL)
	}
	return sql.Open("sqlite", "file:"+cfg.DataDir+"/kassa.db")
}
