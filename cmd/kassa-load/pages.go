package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
)

// pagesLoad runs "kassa-load pages": it creates -pages invoices, opens one payment
// page event stream (GET /pay/{id}/events, as pay.js opens it with EventSource) per
// invoice, waits until every stream has sent its first view, then pays -rate
// invoices a second for -pay through the devnet payments route (the store's
// ingestion: the payment, the invoice's new status and their events in one
// commit), and measures for each paid invoice the time from the commit to its page
// receiving the paid view. The commit is stamped by the server: the view's paid_at,
// written in the payment's transaction (milliseconds, so a figure is at most 1 ms
// short of the true one, and the commit itself comes after the stamp). The time
// from just before the payment's POST is printed too. Everything is bounded by -d.
func pagesLoad(args []string) error {
	fs, sf := newStreamFlags("pages", 16, 10*time.Minute, 20*time.Second)
	pages := fs.Int("pages", 10000, "invoices created, each with its payment page stream open")
	rate := fs.Float64("rate", 100, "payments per second (each pays one invoice in full)")
	pay := fs.Duration("pay", 30*time.Second, "how long to make payments (at most -pages payments)")
	fs.Parse(args)
	if *pages < 1 || *rate <= 0 || *pay <= 0 {
		return errors.New("pages: -pages, -rate and -pay must be positive")
	}
	ctx, cancel, err := sf.start()
	if err != nil {
		return err
	}
	defer cancel()
	httpBase, key := sf.base, sf.key
	epoch := time.Now()

	// 1. The invoices, with their payment sessions.
	api := apiClient(sf.inflight)
	t := time.Now()
	invs, failed := createPageInvoices(ctx, api, httpBase, key, *pages, sf.inflight)
	fmt.Printf("pages: invoices created=%d failed=%d in %.1fs\n", len(invs), failed, time.Since(t).Seconds())
	for reason, n := range createFailures(invs) {
		fmt.Printf("pages: create failed x%d: %s\n", n, reason)
	}
	if len(invs) == 0 {
		return errors.New("pages: no invoice could be created")
	}

	// 2. One stream per invoice, 'ramp' at a time; each counts as open once its
	// first view arrived (the server subscribed before sending it).
	streams := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, ForceAttemptHTTP2: false}}
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var (
		wg     sync.WaitGroup
		opened atomic.Int64
		views  atomic.Int64 // paid views received
	)
	t = time.Now()
	for lo := 0; lo < len(invs) && ctx.Err() == nil; lo += sf.ramp {
		hi := min(lo+sf.ramp, len(invs))
		var first sync.WaitGroup
		for _, p := range invs[lo:hi] {
			first.Add(1)
			wg.Go(func() { p.follow(readCtx, streams, httpBase, epoch, &first, &opened, &views) })
		}
		first.Wait()
	}
	fmt.Printf("pages: streams open=%d of %d in %.1fs\n", opened.Load(), len(invs), time.Since(t).Seconds())
	for reason, n := range streamFailures(invs) {
		fmt.Printf("pages: stream failed x%d: %s\n", n, reason)
	}
	if opened.Load() == 0 {
		return errors.New("pages: no stream could be opened")
	}

	// 3. The payments, paced, each to an invoice whose page is open.
	n := min(int(rate64(*rate, *pay)), len(invs))
	var targets []*pageInvoice
	for _, p := range invs {
		if len(targets) < n && p.open.Load() {
			targets = append(targets, p)
		}
	}
	t = time.Now()
	payFailed := payInvoices(ctx, api, httpBase, key, targets, *rate, sf.inflight, epoch)
	payTime := time.Since(t)
	paid := len(targets) - sum(payFailed)
	fmt.Printf("pages: payments made=%d failed=%d in %.1fs (%.1f/s)\n", paid, sum(payFailed), payTime.Seconds(),
		float64(paid)/payTime.Seconds())
	for reason, n := range payFailed {
		fmt.Printf("pages: payment failed x%d: %s\n", n, reason)
	}

	// 4. Wait for the views, bounded by -settle and by -d.
	awaitCount(ctx, &views, int64(paid), sf.settle, func() bool { return true })
	stopReading()
	wg.Wait()
	return pagesReport(targets, paid, int(opened.Load()), epoch)
}

func rate64(rate float64, d time.Duration) float64 { return rate * d.Seconds() }

// pageInvoice is one invoice, its payment page stream and what the run saw of it.
// Its stream's goroutine writes the stream's fields until the run ends.
type pageInvoice struct {
	id, session, signature string
	createErr              string

	open      atomic.Bool // the first view arrived
	streamErr string      // why the stream failed or ended early
	paidView  time.Duration
	paidAt    time.Time // the paid view's paid_at
	other     int       // views that were neither the first nor the paid one

	t0, t1 time.Duration // just before the payment's POST and after its answer; t1 == 0: not paid
	payErr string
}

// createPageInvoices creates n invoices, inflight at a time.
func createPageInvoices(ctx context.Context, client *http.Client, base, key string, n, inflight int) ([]*pageInvoice, int) {
	all := make([]*pageInvoice, n)
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range inflight {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				all[i] = createPageInvoice(ctx, client, base, key)
			}
		})
	}
	wg.Wait()
	var ok []*pageInvoice
	failed := 0
	for _, p := range all {
		switch {
		case p == nil:
		case p.createErr != "":
			failed++
		default:
			ok = append(ok, p)
		}
	}
	return ok, failed
}

var lastCreateErrs sync.Map // reason -> *atomic.Int64

func createFailures([]*pageInvoice) map[string]int {
	m := map[string]int{}
	lastCreateErrs.Range(func(k, v any) bool { m[k.(string)] = int(v.(*atomic.Int64).Load()); return true })
	return m
}

func countErr(m *sync.Map, reason string) {
	v, _ := m.LoadOrStore(reason, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func createPageInvoice(ctx context.Context, client *http.Client, base, key string) *pageInvoice {
	p := &pageInvoice{}
	b, err := do(client, createRequest(ctx, base, key, []byte(`{"amount_usd": 1}`)), http.StatusCreated)
	if err == nil {
		var v struct {
			InvoiceID  string `json:"invoice_id"`
			PaymentURL string `json:"payment_url"`
		}
		if err = json.Unmarshal(b, &v); err == nil {
			var u *url.URL
			if u, err = url.Parse(v.PaymentURL); err == nil {
				p.id, p.session, p.signature = v.InvoiceID, u.Query().Get("session"), u.Query().Get("signature")
				if p.id == "" || p.session == "" || p.signature == "" {
					err = fmt.Errorf("no invoice_id or session in the answer: %.100s", b)
				}
			}
		}
	}
	if err != nil {
		p.createErr = shortErr(err)
		countErr(&lastCreateErrs, p.createErr)
	}
	return p
}

var (
	statusField = []byte(`"status":"`)
	paidAtField = []byte(`"paid_at":"`)
	dataPrefix  = []byte("data: ")
)

// follow opens the invoice's page stream and reads it until the paid view arrives,
// the stream ends or ctx ends; first is released once the first view arrived or
// the stream failed.
func (p *pageInvoice) follow(ctx context.Context, client *http.Client, base string, epoch time.Time,
	first *sync.WaitGroup, opened, views *atomic.Int64) {
	released := false
	release := func() {
		if !released {
			released = true
			first.Done()
		}
	}
	defer release()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/pay/"+p.id+"/events?session="+url.QueryEscape(p.session)+
		"&signature="+url.QueryEscape(p.signature), nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		p.streamErr = shortErr(err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		p.streamErr = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
		return
	}
	br := bufio.NewReaderSize(resp.Body, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if ctx.Err() == nil && p.paidView == 0 {
				p.streamErr = "ended before the paid view: " + shortErr(err)
			}
			return
		}
		if !bytes.HasPrefix(line, dataPrefix) {
			continue // the blank line ending an event, a ping comment
		}
		at := time.Since(epoch)
		if !p.open.Load() {
			p.open.Store(true)
			opened.Add(1)
			release()
			continue
		}
		status, _ := stringAfter(line, statusField)
		if status != string(kassa.StatusPaid) {
			p.other++
			continue
		}
		if s, ok := stringAfter(line, paidAtField); ok {
			p.paidAt, _ = time.Parse(time.RFC3339Nano, s)
		}
		p.paidView = at
		views.Add(1)
		return // a paid invoice's view is final: the server ends the stream
	}
}

var streamErrs = map[string]int{}

func streamFailures(invs []*pageInvoice) map[string]int {
	clear(streamErrs)
	for _, p := range invs {
		if !p.open.Load() && p.streamErr != "" {
			streamErrs[p.streamErr]++
		}
	}
	return streamErrs
}

// payInvoices pays each target in full at rate per second, at most inflight at
// once, through POST /api/v1/devnet/invoices/{id}/payments.
func payInvoices(ctx context.Context, client *http.Client, base, key string, targets []*pageInvoice,
	rate float64, inflight int, epoch time.Time) map[string]int {
	var (
		mu     sync.Mutex
		failed = map[string]int{}
	)
	paced(ctx, len(targets), rate, inflight, func(i int) {
		p := targets[i]
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/devnet/invoices/"+p.id+"/payments", nil)
		req.Header.Set("x-api-key", key)
		t0 := time.Since(epoch)
		_, err := do(client, req, http.StatusCreated)
		t1 := time.Since(epoch)
		if err != nil {
			p.payErr = shortErr(err)
			mu.Lock()
			failed[p.payErr]++
			mu.Unlock()
			return
		}
		p.t0, p.t1 = t0, t1
	})
	// Targets never sent (ctx ended) count as failed too.
	for _, p := range targets {
		if p.t1 == 0 && p.payErr == "" {
			failed["not sent: the run's time ran out"]++
		}
	}
	return failed
}
