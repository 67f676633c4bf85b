package httpx

import (
	"context"
	"errors"
	"math"
	"sync"
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
//
// A key that sends many requests takes its budget from the store in leases of
// several tokens at once (at most burst/16, at most maxLease), then spends them
// here: one write per lease instead of one per request. A lease's tokens are
// taken from the shared budget before they are spent, so the instances together
// never admit more than the limit; tokens left unspent when a lease lapses are
// lost, which can only make the limit stricter, by at most a lease per instance.
// A key that is not busy, or a budget whose burst is under 32, takes one token at
// a time, exactly as before.
type SharedLimiter struct {
	store     RateStore
	name      string // the bucket's name, prefixed to each key
	rate      float64
	burst     int
	interval  time.Duration // one request's share of time, 1/rate
	tolerance time.Duration // the burst's, burst/rate
	maxLease  int
	now       func() time.Time

	mu      sync.Mutex
	leases  map[string]*lease
	refills map[string]*refill // keys whose next lease is being taken
}

// refill is a lease being taken for a key's waiting requests: done is closed once
// it is in place, or err says why it is not. A store failure is the waiting
// requests' answer too, rather than each waiting in turn for a store call of its
// own; the taker's context ending (its client gone) makes them try again.
type refill struct {
	done chan struct{}
	err  error
}

// maxLease bounds the tokens of one lease; leaseLife is how long unspent tokens
// may be spent; a key whose lease ran out within leaseBusy of its taking is busy,
// and its next lease is twice as large.
const (
	maxLease  = 64
	leaseLife = time.Second
	leaseBusy = 100 * time.Millisecond
)

// lease is the tokens of one key taken from the store and not yet spent.
type lease struct {
	left   int       // tokens still to spend
	size   int       // tokens the next lease takes
	taken  time.Time // when this lease was taken
	global int       // tokens the shared budget had left once this lease was taken
	reset  int       // seconds until the shared bucket was full again, then
}

// spendable reports whether le, which may be nil, has a token left to spend at now.
func (le *lease) spendable(now time.Time) bool {
	return le != nil && le.left > 0 && now.Sub(le.taken) < leaseLife
}

// NewSharedLimiter returns the budget name ("general", "create", "login") of rate
// requests per second up to burst, kept in s.
func NewSharedLimiter(s RateStore, name string, rate float64, burst int) *SharedLimiter {
	burst = max(burst, 1)
	interval := max(time.Duration(float64(time.Second)/rate), time.Microsecond)
	return &SharedLimiter{store: s, name: name, rate: rate, burst: burst,
		interval: interval, tolerance: interval * time.Duration(burst),
		maxLease: min(maxLease, max(1, burst/16)), now: time.Now, leases: map[string]*lease{},
		refills: map[string]*refill{}}
}

func (l *SharedLimiter) take(ctx context.Context, key string) (decision, error) {
	if l.maxLease == 1 {
		return l.takeN(ctx, key, 1)
	}
	l.mu.Lock()
	le, now := l.leases[key], l.now()
	// While a request of this key takes its next lease, the others wait for it and
	// spend from it rather than each take a lease more: all but the last of leases
	// taken at once would be lost from the shared budget.
	for !le.spendable(now) && l.refills[key] != nil {
		r := l.refills[key]
		l.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
			return decision{}, ctx.Err()
		}
		if r.err != nil && !errors.Is(r.err, context.Canceled) && !errors.Is(r.err, context.DeadlineExceeded) {
			return decision{}, r.err // the store's failure; one of the taker's own context is not this request's
		}
		l.mu.Lock()
		le, now = l.leases[key], l.now()
	}
	if le.spendable(now) {
		le.left--
		d := decision{allowed: true, limit: l.burst, remaining: le.global + le.left, reset: le.reset}
		l.mu.Unlock()
		return d, nil
	}
	n := 1
	if le != nil && now.Sub(le.taken) < leaseBusy {
		n = min(l.maxLease, max(2, le.size*2))
	}
	var err error
	if n > 1 { // a lease to share: the key's other requests wait for it
		r := &refill{done: make(chan struct{})}
		l.refills[key] = r
		defer func() {
			l.mu.Lock()
			delete(l.refills, key)
			l.mu.Unlock()
			r.err = err
			close(r.done)
		}()
	}
	l.mu.Unlock()
	var d decision
	d, err = l.takeN(ctx, key, n)
	if err == nil && !d.allowed && n > 1 {
		// Not enough left for a lease: from now on the key's last tokens go one
		// at a time, until a lease is spent quickly again.
		l.mu.Lock()
		l.leases[key] = &lease{}
		l.mu.Unlock()
		n = 1
		d, err = l.takeN(ctx, key, 1)
	}
	if err != nil || !d.allowed {
		return d, err
	}
	l.mu.Lock()
	if len(l.leases) >= 10_000 {
		l.leases = map[string]*lease{}
	}
	// A single token taken while a lease is being taken, or with one to spend
	// (requests of a key not yet busy, arriving together), leaves that lease be.
	if n > 1 || l.refills[key] == nil && !l.leases[key].spendable(now) {
		l.leases[key] = &lease{left: n - 1, size: n, taken: now, global: d.remaining, reset: d.reset}
	}
	l.mu.Unlock()
	d.remaining += n - 1
	return d, nil
}

// takeN takes n tokens of key's shared budget at once, or none.
func (l *SharedLimiter) takeN(ctx context.Context, key string, n int) (decision, error) {
	ok, ahead, err := l.store.TakeRate(ctx, l.name+":"+key, l.interval*time.Duration(n), l.tolerance)
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
