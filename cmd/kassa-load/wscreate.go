package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// createResult is what the creates of a ws run did: each created invoice's t0
// (just before its POST was sent, since the run's epoch) and the failures.
type createResult struct {
	t0      map[string]time.Duration
	failed  map[string]int // reason: count
	elapsed time.Duration
	post    []time.Duration // POST round trips of the successful creates
}

func (r *createResult) ok() int { return len(r.t0) }

// createInvoices posts n invoices paced at rate per second, at most inflight at
// once, and stops early when ctx ends.
func createInvoices(ctx context.Context, base, key string, n int, rate float64, inflight int, epoch time.Time) *createResult {
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: inflight, DisableCompression: true}}
	res := &createResult{t0: make(map[string]time.Duration, n), failed: map[string]int{}}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, inflight)
	)
	body := []byte(`{"amount_usd": 1}`)
	start := time.Now()
	for i := 0; i < n; i++ {
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
			req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/invoices", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-key", key)
			req.Header.Set("Idempotency-Key", kassa.NewUUID())
			t0 := time.Since(epoch)
			id, err := postInvoice(client, req)
			rt := time.Since(epoch) - t0
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.failed[shortErr(err)]++
				return
			}
			res.t0[id] = t0
			res.post = append(res.post, rt)
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

func postInvoice(client *http.Client, req *http.Request) (string, error) {
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("HTTP %d: %.100s", resp.StatusCode, b)
	}
	var v struct {
		InvoiceID string `json:"invoice_id"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.InvoiceID == "" {
		return "", fmt.Errorf("no invoice_id in the answer: %.100s", b)
	}
	return v.InvoiceID, nil
}

var (
	typeField = []byte(`"type":"`)
	dataField = []byte(`"data":{"object":{`)
	idField   = []byte(`"id":"`)
)

// eventTypeAndObjectID reads an event frame's type and data.object.id. A frame is
// read by 1,000s of clients at once on the same cores as the server, so it scans
// for the fields of the server's compact encoding instead of decoding the whole
// object; anything else is decoded properly.
func eventTypeAndObjectID(b []byte) (typ, id string, ok bool) {
	if typ, ok = stringAfter(b, typeField); ok {
		if i := bytes.Index(b, dataField); i >= 0 {
			if id, ok = stringAfter(b[i+len(dataField):], idField); ok {
				return typ, id, true
			}
		}
	}
	var e struct {
		Type string `json:"type"`
		Data struct {
			Object struct {
				ID string `json:"id"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
		return "", "", false
	}
	return e.Type, e.Data.Object.ID, true
}

// stringAfter returns the plain JSON string that follows the first field (a
// `"name":"` prefix) in b; false when absent or escaped.
func stringAfter(b, field []byte) (string, bool) {
	i := bytes.Index(b, field)
	if i < 0 {
		return "", false
	}
	b = b[i+len(field):]
	j := bytes.IndexByte(b, '"')
	if j < 0 || bytes.IndexByte(b[:j], '\\') >= 0 {
		return "", false
	}
	return string(b[:j]), true
}
