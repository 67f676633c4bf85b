package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"kassa"
	"kassa/report"
	"kassa/store"
)

// csvReport streams seed-1's invoices.csv of the last days to nowhere and prints
// its rows, bytes, time and the process's memory high-water mark (VmHWM).
func csvReport(ctx context.Context, cfg store.Config, days int) error {
	db, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := db.MerchantByEmail(ctx, seedEmail(1))
	if err != nil {
		return err
	}
	env := kassa.Devnet
	since := time.Now().AddDate(0, 0, -days)
	before := highWater()
	start := time.Now()
	rep, err := report.Source{Invoices: db, Payments: db, Refunds: db}.Run(ctx, "invoices.csv",
		report.Filter{MerchantID: m.ID, Environment: &env, CreatedGTE: &since})
	if err != nil {
		return err
	}
	defer rep.Close()
	n, err := rep.WriteTo(io.Discard)
	if err != nil {
		return err
	}
	fmt.Printf("| invoices.csv, last %d days | %d B | %s | VmHWM %s before, %s after |\n", days, n,
		time.Since(start).Round(time.Millisecond), before, highWater())
	return nil
}

// highWater is the process's peak resident memory so far, as /proc says it.
func highWater() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
