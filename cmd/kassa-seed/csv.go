package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/report"
	"github.com/kassapay/kassa/store"
)

// csvReport streams seed-1's invoices.csv of the seeded span's last days to
// nowhere and prints its rows, bytes, time, the peak of the process's anonymous
// memory while it ran
// and its memory high-water mark (VmHWM, which counts the SQLite file's mapped
// pages too).
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
	_, newest, err := seededSpan(ctx, cfg, m.ID)
	if err != nil {
		return err
	}
	since := newest.AddDate(0, 0, -days) // the seeded span's last days
	before := highWater()
	peak, stop := anonPeak()
	start := time.Now()
	rep, err := report.Source{Invoices: invoicing.Over(db), Payments: db, Refunds: db}.Run(ctx, "invoices.csv",
		report.Filter{MerchantID: m.ID, Environment: &env, CreatedGTE: &since})
	if err != nil {
		return err
	}
	defer rep.Close()
	lines := &lineCounter{}
	n, err := rep.WriteTo(lines)
	if err != nil {
		return err
	}
	took := time.Since(start)
	stop()
	fmt.Printf("| invoices.csv, last %d days | %d rows, %d B | %s | peak anonymous memory %d MiB (VmHWM %s before, %s after, with the mapped database file) |\n",
		days, lines.n-1, n, took.Round(time.Millisecond), peak.Load()>>10, before, highWater())
	return nil
}

// anonPeak samples the process's anonymous resident memory (RssAnon: the heap,
// not the pages of the SQLite file it maps) every 5 ms until stop, keeping the
// highest in KiB.
func anonPeak() (peak *atomic.Int64, stop func()) {
	peak = new(atomic.Int64)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := statusKB("RssAnon:"); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return peak, func() { close(done); <-finished }
}

// statusKB is a "Name: N kB" line of /proc/self/status, in KiB (0 if absent).
func statusKB(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
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

// lineCounter counts the lines written to it (the seeded texts hold no newline).
type lineCounter struct{ n int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}
