package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// idleWindow is how long TestIdleServerRests watches an idle server.
const idleWindow = 3 * time.Second

// maxIdleTransactions bounds the store transactions an idle server may run in
// idleWindow: its workers poll (webhooks every second, settlement every two,
// placement and expiry every five), a few claims that find nothing. Before the
// fix of issue 11 a claim that found nothing woke its own worker, which claimed
// again at once: thousands of transactions a second.
const maxIdleTransactions = 30

// TestIdleServerRests runs serve's real wiring with no data, requests or webhook
// endpoints and counts the store's transactions over idleWindow: a handful, none
// of which changes data.
func TestIdleServerRests(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		if cfg.DataDir == "" {
			cfg.DataDir = t.TempDir()
		}
		db, stop := serveInProcess(t, cfg)
		before := db.Stats()
		time.Sleep(idleWindow)
		after := db.Stats()
		stop()
		txs, wakes := after.Transactions-before.Transactions, after.Wakes-before.Wakes
		t.Logf("idle for %v: %d store transactions, %d wake-ups", idleWindow, txs, wakes)
		if txs > maxIdleTransactions {
			t.Errorf("an idle server ran %d store transactions in %v, want at most %d", txs, idleWindow, maxIdleTransactions)
		}
		if wakes != 0 {
			t.Errorf("an idle server signalled %d commits that changed data, want none", wakes)
		}
	})
}

// serveInProcess runs serve on cfg's store and a free port until stop is called
// (or the test ends), and returns the store it opened once it is listening.
func serveInProcess(t *testing.T, cfg store.Config) (db *store.DB, stop func()) {
	t.Helper()
	opened := make(chan *store.DB, 1)
	openStore = func(ctx context.Context, c store.Config) (*store.DB, error) {
		db, err := store.Open(ctx, c)
		if err == nil {
			opened <- db
		}
		return db, err
	}
	t.Cleanup(func() { openStore = store.Open })
	_, stop = runServe(t, storeArgs(cfg)...)
	return <-opened, stop
}

// runServe runs serve with args on a free port until stop is called (or the test
// ends), and returns what it printed once it is listening.
func runServe(t *testing.T, args ...string) (stdout *lockedBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, append([]string{"--addr", "127.0.0.1:0", "--drain-delay", "0"}, args...), stdout, stderr)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(stop)
	deadline := time.After(time.Minute)
	for !strings.Contains(stdout.String(), "kassa listening on") {
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("serve ended before listening: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("serve did not start in time:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return stdout, stop
}
