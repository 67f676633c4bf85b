package httpx

import (
	"context"
	"math"
	"time"
)

// RateStore keeps rate budgets that every instance on one database shares
// (store.DB.TakeRate: GCRA, one atomic upsert per request).
type RateStore interface {
	// TakeRate takes one request from key's budget and reports whether it was let
	// in and how far the key's theoretical arrival time is ahead of now after it.
	TakeRate(ctx context.Context, key string, interval, tolerance time.Duration) (ok bool, ahead time.Duration, err error)
}

// SharedLimiter is a RateLimiter whose budgets live in a RateStore, so a key's
// limit is the same whatever the number of instances. Its budget is the token
// bucket's (burst at once, then rate per second) and it answers the same headers:
// a deficit of ahead is burst - ahead×rate tokens left.
type SharedLimiter struct {
	store     RateStore
	name      string // the bucket's name, prefixed to each key
	rate      float64
	burst     int
	interval  time.Duration // one request's share of time, 1/rate
	tolerance time.Duration // the burst's, burst/rate
}

// NewSharedLimiter returns the budget name ("general", "create", "login") of rate
// requests per second up to burst, kept in s.
func NewSharedLimiter(s RateStore, name string, rate float64, burst int) *SharedLimiter {
	burst = max(burst, 1)
	interval := max(time.Duration(float64(time.Second)/rate), time.Microsecond)
	return &SharedLimiter{store: s, name: name, rate: rate, burst: burst,
		interval: interval, tolerance: interval * time.Duration(burst)}
}

func (l *SharedLimiter) take(ctx context.Context, key string) (decision, error) {
	ok, ahead, err := l.store.TakeRate(ctx, l.name+":"+key, l.interval, l.tolerance)
	if err != nil {
		return decision{}, err
	}
	tokens := float64(l.burst) - ahead.Seconds()*l.rate
	d := decision{allowed: ok, limit: l.burst, remaining: max(0, int(math.Floor(tokens+1e-9)))}
	if ok {
		d.reset = ceilSeconds(ahead.Seconds())
	} else {
		d.retryAfter = ceilSeconds((1 - tokens) / l.rate)
		d.reset = d.retryAfter
	}
	return d, nil
}
