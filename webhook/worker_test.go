package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// finish is one recorded FinishWebhookAttempt call.
type finish struct {
	job *delivery.Job
	a   kassa.WebhookAttempt
	res delivery.Result
	ctx error // the context's error when the call was made
}

// fakeQueue hands out its jobs and records finishes.
type fakeQueue struct {
	mu        sync.Mutex
	jobs      []*delivery.Job
	finishes  []finish
	finishErr error
	lease     time.Duration
}

func (q *fakeQueue) ClaimWebhookJobs(_ context.Context, limit int, lease time.Duration) ([]*delivery.Job, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(limit, len(q.jobs))
	out := q.jobs[:n:n]
	q.jobs, q.lease = q.jobs[n:], lease
	return out, nil
}

func (q *fakeQueue) FinishWebhookAttempt(ctx context.Context, job *delivery.Job, a kassa.WebhookAttempt, res delivery.Result) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.finishes = append(q.finishes, finish{job, a, res, ctx.Err()})
	return q.finishErr
}

func (q *fakeQueue) add(jobs ...*delivery.Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, jobs...)
}

func (q *fakeQueue) finished() []finish {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]finish(nil), q.finishes...)
}

// jobs returns n devnet jobs for url.
func jobs(t *testing.T, url string, n int) []*delivery.Job {
	t.Helper()
	out := make([]*delivery.Job, n)
	for i := range out {
		out[i] = testJob(t, url, 0)
	}
	return out
}

func TestRunOnce(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name                   string
		queued, workers, batch int
		finishErr              error
		wantSent               int
	}{
		{"partial batch", 5, 2, 10, nil, 5},
		{"full batch", 12, 3, 10, nil, 10},
		{"empty", 0, 2, 10, nil, 0},
		{"finish fails", 3, 8, 10, errors.New("database is down"), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peak.Store(0)
			q := &fakeQueue{finishErr: tt.finishErr}
			q.add(jobs(t, srv.URL, tt.queued)...)
			w := &Worker{Targets: allowPrivate, Queue: q, Workers: tt.workers, Batch: tt.batch}
			n, err := w.RunOnce(t.Context())
			if n != tt.wantSent || (err != nil) != (tt.finishErr != nil) || (err != nil && !errors.Is(err, tt.finishErr)) {
				t.Fatalf("RunOnce = %d, %v; want %d sent, error %v", n, err, tt.wantSent, tt.finishErr)
			}
			if got := len(q.finished()); got != tt.wantSent {
				t.Fatalf("%d finishes, want %d", got, tt.wantSent)
			}
			for _, f := range q.finished() {
				if !f.a.Succeeded || f.res.StatusCode != 200 || f.a.Attempt != 1 {
					t.Fatalf("finish %+v %+v", f.a, f.res)
				}
			}
			if p := int(peak.Load()); p > tt.workers {
				t.Fatalf("%d attempts at once, want at most %d", p, tt.workers)
			}
			if q.lease < DefaultLease {
				t.Fatalf("lease %v, want at least %v", q.lease, DefaultLease)
			}
		})
	}
}

// TestRunShutdown cancels Run while an attempt is in flight: the attempt still
// completes and is recorded, with a live context, before Run returns.
func TestRunShutdown(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(started)
		<-release // answered only once Run's context has ended
	}))
	t.Cleanup(srv.Close)
	q := &fakeQueue{}
	q.add(testJob(t, srv.URL, 0))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		(&Worker{Targets: allowPrivate, Queue: q, Poll: time.Hour}).Run(ctx)
		close(done)
	}()
	<-started
	cancel()
	close(release)
	<-done
	f := q.finished()
	if len(f) != 1 || !f[0].a.Succeeded || f[0].ctx != nil {
		t.Fatalf("finishes %+v, want one successful attempt recorded with a live context", f)
	}
}

// TestRunWake checks that Run claims again on a wake signal without waiting for
// Poll, and at once after a full batch.
func TestRunWake(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	q := &fakeQueue{}
	q.add(jobs(t, srv.URL, 3)...) // a full batch, then one more
	wake := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		(&Worker{Targets: allowPrivate, Queue: q, Batch: 2, Poll: time.Hour, Wake: wake}).Run(ctx)
		close(done)
	}()
	waitFinishes(t, q, 3)
	q.add(testJob(t, srv.URL, 0))
	wake <- struct{}{}
	waitFinishes(t, q, 4)
	cancel()
	<-done
}

// TestRunAgainAfterShortRound: a round that sent fewer than a batch claims again
// at once, without a wake or Poll: a delivery queued while it sent is sent next
// (a claim may come back short with more due, and Wake fires only for new
// deliveries, not for the worker's own commits).
func TestRunAgainAfterShortRound(t *testing.T) {
	q := &fakeQueue{}
	var once sync.Once
	var url string
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		once.Do(func() { q.add(testJob(t, url, 0)) })
	}))
	t.Cleanup(srv.Close)
	url = srv.URL
	q.add(testJob(t, url, 0))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		(&Worker{Targets: allowPrivate, Queue: q, Batch: 4, Poll: time.Hour, Wake: make(chan struct{})}).Run(ctx)
		close(done)
	}()
	waitFinishes(t, q, 2)
	cancel()
	<-done
}

// waitFinishes waits until q has recorded n finishes.
func waitFinishes(t *testing.T, q *fakeQueue, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(q.finished()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d finishes, want %d", len(q.finished()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
