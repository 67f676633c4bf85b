// Package webhook delivers queued webhook events: a worker claims due deliveries
// from the durable queue, posts each, signed per Standard Webhooks, through an
// SSRF-guarded client and records the attempt, which plans the retry.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/worker"
)

// Defaults of Worker's knobs.
const (
	DefaultWorkers = 8
	DefaultBatch   = 32
	DefaultLease   = time.Minute
	DefaultPoll    = time.Second
)

// wakeSettle is how long a round woken by a commit waits for the commits after it
// (worker.Loop.Settle): a delivery starts at most this much later, and a create
// load does not cost a queue claim per create.
const wakeSettle = 5 * time.Millisecond

const (
	userAgent    = "Kassa-Webhooks/1"
	drainBytes   = 64 << 10         // read past the excerpt so the connection can be reused
	finishBudget = 10 * time.Second // recording an attempt; also the lease margin
)

// Worker sends due webhook deliveries. Its zero knobs take the defaults.
type Worker struct {
	Queue Queue
	// Targets is where deliveries may go (serve --webhook-allow-private, which
	// concerns devnet only); the zero value reaches public addresses only.
	Targets delivery.Targets
	// Clients send per environment; a nil map or a missing environment uses a
	// guarded client built from Targets for that environment (client.go), so a
	// delivery is dialled under its own environment's rule.
	Clients map[kassa.Environment]*http.Client
	Log     *slog.Logger
	Workers int           // concurrent senders, DefaultWorkers when 0
	Batch   int           // deliveries claimed at once, DefaultBatch when 0
	Lease   time.Duration // claim lease, DefaultLease when 0; raised to twice an attempt and its record
	Poll    time.Duration // wait when the queue ran dry, DefaultPoll when 0
	// Wake, when not nil, signals that new deliveries may be due.
	Wake <-chan struct{}
	Now  func() time.Time // time.Now when nil
	// Metrics, when not nil, is told the outcome and latency of every attempt.
	Metrics Metrics

	timeout time.Duration // per attempt; kassa.WebhookTimeout when 0 (tests shorten it)
	dial    clientOptions // of the clients made per environment; tests set resolver and rootCAs
	mu      sync.Mutex
	made    map[kassa.Environment]*http.Client
}

// Run sends due deliveries until ctx ends (worker.Loop): after a round that sent
// anything it claims again at once (a batch may come back short with more due,
// and the worker's own commits do not wake it: Wake is store.DB.Deliveries),
// otherwise it waits for Poll, Wake or the end of ctx.
// Attempts in flight when ctx ends finish, and are recorded, before Run returns.
func (w *Worker) Run(ctx context.Context) {
	worker.Loop{Name: "webhook round", Interval: w.poll(), Wake: w.Wake, Settle: wakeSettle, Log: w.log()}.Run(ctx, func(ctx context.Context) (bool, error) {
		n, err := w.RunOnce(ctx)
		return n > 0, err
	})
}

// RunOnce claims one batch, sends its deliveries concurrently (at most Workers at
// once) and records each attempt with Queue.FinishWebhookAttempt. It returns how
// many were sent, with the claim error or the errors of recording (a delivery whose
// attempt was not recorded is sent again when its lease runs out). Attempts use a
// context detached from ctx's cancellation, bounded by the webhook timeout; once ctx
// ends no new attempt starts. A delivery whose lease would run out before its
// attempt could finish is left to be claimed again.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	timeout := w.attemptTimeout()
	deadline := time.Now().Add(w.lease())
	jobs, err := w.Queue.ClaimWebhookJobs(ctx, w.batch(), w.lease())
	if err != nil {
		return 0, err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		sent int
		errs []error
		sem  = make(chan struct{}, w.workers())
	)
	for _, job := range jobs {
		select {
		case <-ctx.Done():
		case sem <- struct{}{}:
		}
		if ctx.Err() != nil || time.Until(deadline) < timeout+finishBudget {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			err := w.deliver(context.WithoutCancel(ctx), job)
			mu.Lock()
			defer mu.Unlock()
			sent++
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	return sent, errors.Join(errs...)
}

// deliver sends one job and records the attempt.
func (w *Worker) deliver(ctx context.Context, job *delivery.Job) error {
	a, res, took := w.send(ctx, job)
	if w.Metrics != nil {
		w.Metrics.WebhookAttempt(Outcome(a), took)
	}
	d := &job.Delivery
	if !a.Succeeded {
		w.log().Info("webhook attempt failed", "delivery", d.ID, "endpoint", d.EndpointID,
			"event", d.EventID, "attempt", a.Attempt, "status", a.StatusCode, "err", a.Error)
	}
	fctx, cancel := context.WithTimeout(ctx, finishBudget)
	defer cancel()
	if err := w.Queue.FinishWebhookAttempt(fctx, job, a, res); err != nil {
		return fmt.Errorf("webhook delivery %s: recording attempt %d: %w", d.ID, a.Attempt, err)
	}
	return nil
}

// send makes one attempt of job: it posts the payload signed with every secret and
// reports what came back and how long the request took. ctx should not be canceled
// by shutdown; send bounds it by the webhook timeout.
func (w *Worker) send(ctx context.Context, job *delivery.Job) (kassa.WebhookAttempt, delivery.Result, time.Duration) {
	now := w.now()
	a := kassa.WebhookAttempt{Attempt: job.Delivery.Attempts + 1, At: now}
	var took time.Duration
	fail := func(msg string) (kassa.WebhookAttempt, delivery.Result, time.Duration) {
		a.Error = msg
		return a, delivery.Result{Error: msg}, took
	}
	headers, err := kassa.WebhookHeaders(job.Secrets, job.Delivery.EventID, now, job.Payload)
	if err != nil {
		return fail("bad signing secret")
	}
	ctx, cancel := context.WithTimeout(ctx, w.attemptTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.URL, bytes.NewReader(job.Payload))
	if err != nil {
		return fail("invalid url")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	var remote net.Addr // the address the request went to
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(c httptrace.GotConnInfo) { remote = c.Conn.RemoteAddr() },
	}))
	start := time.Now()
	resp, err := w.client(job.Delivery.Environment).Do(req)
	took = time.Since(start)
	a.LatencyMS = took.Milliseconds()
	if err != nil {
		return fail(describe(err, w.attemptTimeout()))
	}
	defer resp.Body.Close()
	a.StatusCode, a.ResponseExcerpt = resp.StatusCode, kassa.WebhookBodyNotKept
	if public(remote) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, kassa.WebhookExcerptBytes))
		a.ResponseExcerpt = excerpt(body)
	}
	_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
	res := delivery.Result{StatusCode: resp.StatusCode}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		res.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	}
	a.Succeeded = res.Succeeded()
	return a, res, took
}

// describe renders a transport error for the delivery log, without the URL (it is
// the merchant's and may carry a token); timeouts say so.
func describe(err error, timeout time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var (
		ne      net.Error
		refused *refusedError
	)
	switch {
	case errors.As(err, &refused):
		return refused.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timeout: no response within %v", timeout)
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout: " + err.Error()
	}
	return err.Error()
}

// excerpt makes the start of a response body storable text: valid UTF-8 without
// NUL bytes (PostgreSQL text refuses them), at most kassa.WebhookExcerptBytes long.
func excerpt(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	for len(s) > kassa.WebhookExcerptBytes {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// retryAfter parses a Retry-After value, delta-seconds or an HTTP date, into a wait
// from now capped at kassa.WebhookMaxRetryWait; 0 when absent, invalid or past.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0
		}
		d = time.Duration(min(secs, int64(kassa.WebhookMaxRetryWait/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, kassa.WebhookMaxRetryWait))
}

// client returns env's client from Clients, or a guarded one for Targets in env
// made on first use.
func (w *Worker) client(env kassa.Environment) *http.Client {
	if c := w.Clients[env]; c != nil {
		return c
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if c := w.made[env]; c != nil {
		return c
	}
	o := w.dial
	o.dialTimeout = orDefault(o.dialTimeout, kassa.WebhookDialTimeout)
	o.timeout = orDefault(o.timeout, kassa.WebhookTimeout)
	c := newClient(w.Targets, env, o)
	if w.made == nil {
		w.made = map[kassa.Environment]*http.Client{}
	}
	w.made[env] = c
	return c
}

func (w *Worker) attemptTimeout() time.Duration { return orDefault(w.timeout, kassa.WebhookTimeout) }
func (w *Worker) workers() int                  { return orDefault(w.Workers, DefaultWorkers) }
func (w *Worker) batch() int                    { return orDefault(w.Batch, DefaultBatch) }
func (w *Worker) poll() time.Duration           { return orDefault(w.Poll, DefaultPoll) }

// lease is the claim lease: long enough for at least one attempt and its record.
func (w *Worker) lease() time.Duration {
	return max(orDefault(w.Lease, DefaultLease), 2*(w.attemptTimeout()+finishBudget))
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.New(slog.DiscardHandler)
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
