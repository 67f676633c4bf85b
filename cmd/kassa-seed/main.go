// Command kassa-seed fills a store with invoices and measures it at that size
// (docs/performance.md, "The store at size"; scripts/bench-size.sh).
//
//	kassa-seed seed    -db URL|-data-dir DIR -n 1000000 [-merchants 5] [-workers 32]
//	kassa-seed measure -db URL|-data-dir DIR [-rounds 100] [-only q=]
//	kassa-seed csv     -db URL|-data-dir DIR [-days 365]
//
// seed writes through the store (CreateInvoice, whose concurrent calls the store
// batches into big transactions, then IngestPayment and CancelInvoice), never
// through HTTP. measure times the dashboard's reads of the biggest merchant at that
// size and prints the bytes per invoice on disk. csv streams invoices.csv of the
// biggest merchant's last -days and prints the process's memory high-water mark.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// seedEmail names the seeded merchants: seed-1@example.com holds most invoices.
func seedEmail(i int) string { return fmt.Sprintf("seed-%d@example.com", i) }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kassa-seed seed|measure|csv [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dbURL := fs.String("db", "", "PostgreSQL URL (empty: SQLite in -data-dir)")
	dataDir := fs.String("data-dir", "", "SQLite data directory")
	n := fs.Int("n", 1_000_000, "seed: invoices to create")
	from := fs.Int("from", 0, "seed: continue a seed that stopped at this invoice (its merchants exist)")
	merchants := fs.Int("merchants", 5, "seed: merchants (the first holds 70 % of the invoices)")
	workers := fs.Int("workers", 32, "seed: concurrent creates")
	rounds := fs.Int("rounds", 100, "measure: timed rounds per query (after 5 untimed)")
	only := fs.String("only", "", "measure: only the reads whose name holds this")
	days := fs.Int("days", 365, "csv: the report covers the last days")
	_ = fs.Parse(os.Args[2:])
	cfg := store.Config{DatabaseURL: *dbURL, DataDir: *dataDir, Secrets: sealed.NewKeyring(mustKey())}
	ctx := context.Background()
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(ctx, cfg, *n, *from, *merchants, *workers)
	case "measure":
		err = measure(ctx, cfg, *rounds, *only)
	case "csv":
		err = csvReport(ctx, cfg, *days)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kassa-seed:", err)
		os.Exit(1)
	}
}

// mustKey is a sealing key for this run: the seeded merchants have no sealed secrets.
func mustKey() *sealed.Key {
	k, _ := sealed.NewKey()
	return k
}

// open opens the store and says how long it took (migrations included).
func open(ctx context.Context, cfg store.Config) (*store.DB, error) {
	start := time.Now()
	db, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	fmt.Printf("opened the store (migrations included) in %s\n", time.Since(start).Round(time.Millisecond))
	return db, nil
}

// catchUp runs SQLite's description index (as serve's worker does) until it holds
// every invoice, and says how long that took.
func catchUp(ctx context.Context, db *store.DB) error {
	start := time.Now()
	passed := 0
	for {
		n, err := db.IndexDescriptions(ctx, 5_000)
		if err != nil {
			return err
		}
		passed += n
		if n < 5_000 {
			break
		}
	}
	if passed > 0 {
		took := time.Since(start)
		fmt.Printf("indexed the descriptions of %d invoices in %s (%.1f µs each)\n", passed, took.Round(time.Millisecond),
			float64(took.Microseconds())/float64(passed))
	}
	return nil
}
