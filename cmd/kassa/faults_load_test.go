package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// createLoad is clients creating invoices with an Idempotency-Key each, as an
// integrator would: a request that failed (no answer, 409 idempotency_key_in_use,
// 429, 503) is sent again with the same key and body until it gets its 201. Each
// invoice's description carries its key, so the store can be checked against what
// was acknowledged.
type createLoad struct {
	t     *testing.T
	url   string
	key   string
	tally *tally
	http  *http.Client
	stop  chan struct{}
	wg    sync.WaitGroup

	mu        sync.Mutex
	acked     map[string]ack       // idempotency key → the first 201 received
	resolved  map[string]time.Time // idempotency key → when its 201 came
	firstFail map[string]time.Time // idempotency key → when its first failed request ended
}

// ack is the first 201 a client received for a key.
type ack struct {
	invoiceID string
	body      []byte
	replayed  bool // the first answer received was already a replay
	tries     int
}

func newCreateLoad(t *testing.T, url, key string, c *tally) *createLoad {
	return &createLoad{t: t, url: url, key: key, tally: c,
		http: &http.Client{Timeout: 30 * time.Second}, stop: make(chan struct{}),
		acked: map[string]ack{}, resolved: map[string]time.Time{}, firstFail: map[string]time.Time{}}
}

// start runs creators clients that create invoices and listers that list them,
// until finish. Each pauses 5 ms between requests, to share the machine.
func (l *createLoad) start(creators, listers int) {
	for i := range creators + listers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				if i >= creators {
					l.list()
					continue
				}
				l.resolve(kassa.NewUUID())
			}
		}()
	}
}

// finish stops the clients once each has its current key resolved.
func (l *createLoad) finish() {
	close(l.stop)
	l.wg.Wait()
}

// interrupted returns the keys whose first failed request (no answer or not
// 201) ended in [from, to): the creates a fault interrupted.
func (l *createLoad) interrupted(from, to time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keys []string
	for k, at := range l.firstFail {
		if !at.Before(from) && at.Before(to) {
			keys = append(keys, k)
		}
	}
	return keys
}

// waitAnswered waits up to limit for every one of keys to get its 201.
func (l *createLoad) waitAnswered(t *testing.T, keys []string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		l.mu.Lock()
		n := 0
		for _, k := range keys {
			if _, ok := l.acked[k]; !ok {
				n++
			}
		}
		l.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d keys not answered 201 within %v", n, limit)
		}
	}
}

// answered returns how many of keys were first answered 201 by a replay (their
// create had committed before the fault), and when the last of them got its 201.
func (l *createLoad) answered(keys []string) (replayed int, last time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if l.acked[k].replayed {
			replayed++
		}
		if at := l.resolved[k]; at.After(last) {
			last = at
		}
	}
	return replayed, last
}

// body is the create request of key.
func createBody(key string) []byte {
	b, _ := json.Marshal(map[string]any{"amount_usd": 5, "description": "fault " + key,
		"metadata": map[string]string{"key": key}})
	return b
}

// send posts the create of key once.
func (l *createLoad) send(key string) (*http.Response, []byte, error) {
	req, _ := http.NewRequest("POST", l.url+"/api/v1/invoices", bytes.NewReader(createBody(key)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", l.key)
	req.Header.Set("Idempotency-Key", key)
	resp, err := l.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp, raw, err
}

// resolve sends the create of key until it is answered 201 (or a status no
// retry can change, which fails the test).
func (l *createLoad) resolve(key string) {
	began := time.Now()
	for tries := 1; ; tries++ {
		if time.Since(began) > 5*time.Minute {
			l.t.Errorf("create %s: no 201 after %d tries in 5 minutes", key, tries)
			return
		}
		resp, raw, err := l.send(key)
		if err != nil || resp.StatusCode != 201 {
			l.mu.Lock()
			if _, ok := l.firstFail[key]; !ok {
				l.firstFail[key] = time.Now()
			}
			l.mu.Unlock()
		}
		if err != nil {
			l.tally.add("create: no answer", false)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		label, wait := outcome("create", resp, raw)
		if resp.StatusCode == 201 {
			replayed := resp.Header.Get("Idempotent-Replayed") == "true"
			var out struct {
				InvoiceID string `json:"invoice_id"`
			}
			if err := json.Unmarshal(raw, &out); err != nil || out.InvoiceID == "" {
				l.t.Errorf("create %s: 201 with body %q", key, raw)
			}
			l.mu.Lock()
			l.acked[key] = ack{invoiceID: out.InvoiceID, body: raw, replayed: replayed, tries: tries}
			l.resolved[key] = time.Now()
			l.mu.Unlock()
			l.tally.add(label, true)
			return
		}
		l.tally.add(label, false)
		if wait == 0 {
			l.t.Errorf("create %s: status %d %s", key, resp.StatusCode, raw)
			return
		}
		time.Sleep(wait)
	}
}

// list lists the newest invoices once.
func (l *createLoad) list() {
	req, _ := http.NewRequest("GET", l.url+"/api/v1/invoices?limit=20", nil)
	req.Header.Set("x-api-key", l.key)
	resp, err := l.http.Do(req)
	if err != nil {
		l.tally.add("list: no answer", false)
		time.Sleep(100 * time.Millisecond)
		return
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	label, _ := outcome("list", resp, raw)
	l.tally.add(label, resp.StatusCode == 200)
	if resp.StatusCode >= 500 && resp.StatusCode != 503 || resp.StatusCode < 500 && resp.StatusCode != 200 {
		l.t.Errorf("list: status %d %s", resp.StatusCode, raw)
	}
}

// outcome labels an answer ("create 201 replayed", "list 503 service_unavailable")
// and says how long a client waits before sending it again (0: it does not).
// A 503 without Retry-After, or whose code is not service_unavailable, fails the
// test's checks later through its label.
func outcome(op string, resp *http.Response, raw []byte) (string, time.Duration) {
	label := fmt.Sprintf("%s %d", op, resp.StatusCode)
	if resp.StatusCode == 201 && resp.Header.Get("Idempotent-Replayed") == "true" {
		return label + " replayed", 0
	}
	if resp.StatusCode < 300 {
		return label, 0
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	label += " " + e.Error.Code
	retryAfter, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	switch {
	case resp.StatusCode == 503 && err != nil:
		return label + " (no Retry-After)", 0
	case resp.StatusCode == 503 || resp.StatusCode == 429:
		return label, time.Duration(max(retryAfter, 1)) * time.Second
	case resp.StatusCode == 409 && e.Error.Code == "idempotency_key_in_use":
		return label, time.Second
	}
	return label, 0
}

// jitter returns a random duration in [lo, hi).
func jitter(lo, hi time.Duration) time.Duration { return lo + rand.N(hi-lo) }
