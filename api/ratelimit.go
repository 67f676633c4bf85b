package api

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"kassa"
)

// limiter is a set of token buckets, one per key, refilled continuously at rate
// tokens per second up to burst. A bucket that has refilled completely is the same
// as no bucket, so idle buckets are evicted by a sweep at most once a minute.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// decision is the outcome of taking one token.
type decision struct {
	allowed    bool
	limit      int
	remaining  int
	reset      int // seconds until the bucket is full again
	retryAfter int // seconds until a token is available, when not allowed
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	if burst < 1 {
		burst = 1
	}
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// take takes one token from key's bucket if one is there.
func (l *limiter) take(key string) decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	} else if now.After(b.at) {
		b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
		b.at = now
	}
	d := decision{limit: int(l.burst)}
	if b.tokens >= 1 {
		b.tokens--
		d.allowed = true
	} else {
		d.retryAfter = ceilSeconds((1 - b.tokens) / l.rate)
	}
	d.remaining = int(math.Floor(b.tokens))
	d.reset = ceilSeconds((l.burst - b.tokens) / l.rate)
	if !d.allowed {
		d.reset = d.retryAfter
	}
	return d
}

// sweep drops buckets that have refilled; the caller holds l.mu.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// size is the number of live buckets (for tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

func ceilSeconds(s float64) int {
	if s <= 0 {
		return 0
	}
	if s > 1e6 {
		return 1e6
	}
	return int(math.Ceil(s - 1e-9))
}

// apply takes a token for key, sets the RateLimit headers and returns a 429 error
// when the bucket is empty.
func apply(w http.ResponseWriter, l *limiter, key string) error {
	d := l.take(key)
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(d.limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(d.reset))
	if d.allowed {
		return nil
	}
	retry := max(d.retryAfter, 1)
	h.Set("Retry-After", strconv.Itoa(retry))
	h.Set("RateLimit-Reset", strconv.Itoa(retry))
	return &kassa.Error{Kind: kassa.KindRateLimited, Code: "rate_limit_exceeded",
		Message: "Too many requests; retry after " + strconv.Itoa(retry) + " seconds."}
}

// limitKey names the bucket of a principal: its API key, or its merchant for
// dashboard tokens.
func limitKey(p kassa.Principal) string {
	if p.Dashboard() {
		return "jwt:" + strconv.FormatInt(p.MerchantID, 10)
	}
	return "key:" + p.KeyID
}

// limitCreate adds the invoice-create bucket to an authenticated handler.
func (s *server) limitCreate(h apiFunc) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := apply(w, s.create, limitKey(principal(r.Context()))); err != nil {
			return err
		}
		return h(w, r)
	}
}

// clientIP is the peer address of the request. Forwarding headers are not trusted.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
