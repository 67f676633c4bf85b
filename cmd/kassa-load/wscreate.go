package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
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
	client := apiClient(inflight)
	res := &createResult{t0: make(map[string]time.Duration, n), failed: map[string]int{}}
	var mu sync.Mutex
	body := []byte(`{"amount_usd": 1}`)
	start := time.Now()
	paced(ctx, n, rate, inflight, func(int) {
		req := createRequest(ctx, base, key, body)
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
	res.elapsed = time.Since(start)
	return res
}

func postInvoice(client *http.Client, req *http.Request) (string, error) {
	b, err := do(client, req, http.StatusCreated)
	if err != nil {
		return "", err
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
