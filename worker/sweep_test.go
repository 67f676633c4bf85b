package worker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// fakeBatch answers ExpireInvoices and IndexDescriptions with n and err, noting
// the limit asked for.
type fakeBatch struct {
	n     int
	err   error
	limit int
}

func (f *fakeBatch) ExpireInvoices(_ context.Context, limit int) (int, error) {
	f.limit = limit
	return f.n, f.err
}

func (f *fakeBatch) IndexDescriptions(_ context.Context, limit int) (int, error) {
	f.limit = limit
	return f.n, f.err
}

// TestBatchRounds: the expiry and description index rounds ask for a batch and
// report more work only when it came back full.
func TestBatchRounds(t *testing.T) {
	rounds := []struct {
		name  string
		round func(*fakeBatch) Round
		batch int
	}{
		{"expiry", func(f *fakeBatch) Round { return expiryRound(f) }, expiryBatch},
		{"description index", func(f *fakeBatch) Round { return descriptionRound(f) }, descriptionBatch},
	}
	down := errors.New("database is down")
	for _, r := range rounds {
		tests := []struct {
			name     string
			n        int
			err      error
			wantMore bool
		}{
			{"nothing to do", 0, nil, false},
			{"part of a batch", r.batch - 1, nil, false},
			{"a full batch: more may wait", r.batch, nil, true},
			{"failed", 3, down, false},
		}
		for _, tt := range tests {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				f := &fakeBatch{n: tt.n, err: tt.err}
				more, err := r.round(f)(t.Context())
				if more != tt.wantMore || !errors.Is(err, tt.err) || f.limit != r.batch {
					t.Fatalf("round = %v, %v (limit %d); want %v, %v (limit %d)", more, err, f.limit, tt.wantMore, tt.err, r.batch)
				}
			})
		}
	}
}

// fakePruner deletes counts[what] rows, or fails with fail[what], and notes the
// cut-offs it was given.
type fakePruner struct {
	counts           map[string]int64
	fail             map[string]error
	events, checkout time.Time
	calls            []string
}

func (f *fakePruner) answer(what string) (int64, error) {
	f.calls = append(f.calls, what)
	return f.counts[what], f.fail[what]
}

func (f *fakePruner) PruneIdempotencyKeys(context.Context) (int64, error) { return f.answer("keys") }

func (f *fakePruner) PruneEvents(_ context.Context, before time.Time) (int64, error) {
	f.events = before
	return f.answer("events")
}

func (f *fakePruner) PruneCheckout(_ context.Context, before time.Time) (int64, error) {
	f.checkout = before
	return f.answer("checkout")
}

func (f *fakePruner) PruneRateLimits(context.Context) (int64, error) { return f.answer("rates") }

func (f *fakePruner) PruneSignInFailures(context.Context) (int64, error) { return f.answer("sign-ins") }

func TestPruneOnce(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	const retention = 7 * 24 * time.Hour
	down := errors.New("database is down")
	tests := []struct {
		name     string
		counts   map[string]int64
		fail     map[string]error
		wantErr  string   // "" wants none
		wantLogs []string // substrings of the log, in any order; nil wants nothing logged
	}{
		{name: "nothing to prune"},
		{name: "counts are logged", counts: map[string]int64{"keys": 2, "checkout": 5, "rates": 3},
			wantLogs: []string{`msg="pruned idempotency keys" count=2`, `msg="pruned checkout estimates and addresses" count=5`,
				`msg="pruned rate limits" count=3`}},
		{name: "a failure does not stop the others", counts: map[string]int64{"checkout": 1},
			fail:     map[string]error{"keys": down, "events": down},
			wantErr:  "prune idempotency keys: database is down\nprune events: database is down",
			wantLogs: []string{`msg="pruned checkout estimates and addresses" count=1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakePruner{counts: tt.counts, fail: tt.fail}
			var log bytes.Buffer
			err := pruneOnce(t.Context(), f, now, retention, slog.New(slog.NewTextHandler(&log, nil)))
			if got := errString(err); got != tt.wantErr {
				t.Errorf("error %q, want %q", got, tt.wantErr)
			}
			if strings.Join(f.calls, " ") != "keys events checkout rates sign-ins" {
				t.Errorf("calls %v, want every deletion once", f.calls)
			}
			if !f.events.Equal(now.Add(-kassa.EventRetention)) || !f.checkout.Equal(now.Add(-retention)) {
				t.Errorf("cut-offs events %v, checkout %v", f.events, f.checkout)
			}
			if lines := strings.Count(log.String(), "\n"); lines != len(tt.wantLogs) {
				t.Errorf("logged %q, want %d lines", log.String(), len(tt.wantLogs))
			}
			for _, want := range tt.wantLogs {
				if !strings.Contains(log.String(), want) {
					t.Errorf("logged %q, want %q", log.String(), want)
				}
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
