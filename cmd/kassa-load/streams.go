package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
)

// What the stream loads (ws.go, pages.go) share: their common flags, their API
// calls and their pacing.

// streamFlags are the flags of a stream load's server and bounds.
type streamFlags struct {
	name           string // the command's
	base, key      string
	inflight, ramp int
	dur, settle    time.Duration
}

// newStreamFlags is the flag set of the command name, with the shared flags
// (defaults of -c, -d and -settle given) registered in the streamFlags.
func newStreamFlags(name string, inflight int, dur, settle time.Duration) (*flag.FlagSet, *streamFlags) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	f := &streamFlags{name: name}
	fs.StringVar(&f.base, "url", "http://127.0.0.1:8080", "base URL of the server")
	fs.StringVar(&f.key, "key", "", "merchant API key (for pages a devnet key: it pays through the devnet route)")
	fs.IntVar(&f.inflight, "c", inflight, "API calls (creates, payments) in flight at most")
	fs.IntVar(&f.ramp, "ramp", 200, "streams opened at once while ramping up")
	fs.DurationVar(&f.dur, "d", dur, "stop after this long whatever happened")
	fs.DurationVar(&f.settle, "settle", settle, "after the last API call, wait at most this long for the missing events")
	return fs, f
}

// start checks the flags, trims base's trailing slash, and returns the run's
// context, which ends after -d.
func (f *streamFlags) start() (context.Context, context.CancelFunc, error) {
	if f.key == "" || f.inflight < 1 || f.ramp < 1 {
		return nil, nil, errors.New(f.name + ": -key is required; -c and -ramp must be positive")
	}
	f.base = strings.TrimRight(f.base, "/")
	ctx, cancel := context.WithTimeout(context.Background(), f.dur)
	return ctx, cancel, nil
}

// apiClient is the client of a run's API calls, inflight at most at once.
func apiClient(inflight int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: inflight, DisableCompression: true}}
}

// createRequest is a POST /api/v1/invoices of body, with its own idempotency key.
func createRequest(ctx context.Context, base, key string, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/invoices", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", key)
	req.Header.Set("Idempotency-Key", kassa.NewUUID())
	return req
}

// do sends req and returns the body of an answer with status want.
func do(client *http.Client, req *http.Request, want int) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("HTTP %d: %.100s", resp.StatusCode, b)
	}
	return b, nil
}

// paced calls f(i) for i from 0 to n-1, the i-th i/rate seconds after the start,
// each in its own goroutine and at most inflight at once. It starts no call after
// ctx ends, and returns once every call it started has returned.
func paced(ctx context.Context, n int, rate float64, inflight int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, inflight)
	start := time.Now()
	for i := range n {
		next := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// awaitCount waits until count reaches want, for settle at most and while ctx
// lasts and alive says so. A count that did not move for 5 s while short of want
// has lost the rest: the wait ends then too.
func awaitCount(ctx context.Context, count *atomic.Int64, want int64, settle time.Duration, alive func() bool) {
	end := time.Now().Add(settle)
	last, lastChange := count.Load(), time.Now()
	for ctx.Err() == nil && time.Now().Before(end) && last < want && alive() && time.Since(lastChange) < 5*time.Second {
		time.Sleep(20 * time.Millisecond)
		if n := count.Load(); n != last {
			last, lastChange = n, time.Now()
		}
	}
}
