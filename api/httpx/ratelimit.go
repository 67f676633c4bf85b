package httpx

import (
	"context"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// RateLimiter keeps a budget per key: burst requests at once, then rate per
// second. Limiter keeps it in this process's memory (one instance); SharedLimiter
// in the store, where every instance on the database draws on the same budget.
type RateLimiter interface {
	// take takes one request from key's budget, if there is one.
	take(ctx context.Context, key string) (decision, error)
}

// Limiter is a set of token buckets, one per key, refilled continuously at rate
// tokens per second up to burst. A bucket that has refilled completely is the same
// as no bucket, so idle buckets are evicted by a sweep at most once a minute.
type Limiter struct {
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

// NewLimiter returns in-memory buckets of rate tokens per second up to burst, on
// the clock now.
func NewLimiter(rate float64, burst int, now func() time.Time) *Limiter {
	if burst < 1 {
		burst = 1
	}
	return &Limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// take takes one token from key's bucket if one is there.
func (l *Limiter) take(_ context.Context, key string) (decision, error) {
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
	return d, nil
}

// sweep drops buckets that have refilled; the caller holds l.mu.
func (l *Limiter) sweep(now time.Time) {
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

func ceilSeconds(s float64) int {
	if s <= 0 {
		return 0
	}
	if s > 1e6 {
		return 1e6
	}
	return int(math.Ceil(s - 1e-9))
}

// Apply takes a token for key, sets the RateLimit headers and returns a 429 error
// when the bucket is empty, or the store's error when a shared budget cannot be read.
func Apply(ctx context.Context, w http.ResponseWriter, l RateLimiter, key string) error {
	d, err := l.take(ctx, key)
	if err != nil {
		return err
	}
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

// LimitKey names the bucket of a principal: its API key, or its merchant for
// dashboard tokens.
func LimitKey(p kassa.Principal) string {
	if p.Dashboard() {
		return "jwt:" + strconv.FormatInt(p.MerchantID, 10)
	}
	return "key:" + p.KeyID
}

// LimitCreate adds the invoice-create bucket to an authenticated handler.
func (s *Core) LimitCreate(h Func) Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := Apply(r.Context(), w, s.create, LimitKey(Principal(r.Context()))); err != nil {
			return err
		}
		return h(w, r)
	}
}

// HostKey is what a client at host (an IP address without port) counts against,
// in every per-address limit (rate buckets, the listener's connection cap): its
// IPv4 address (an IPv4 address mapped into IPv6 by a dual-stack listener is
// taken as IPv4), or the /64 of its IPv6 address. One IPv6 client usually holds
// a whole /64 (it is the smallest prefix a subnet gets), so keying by the
// address would give it 2^64 buckets to rotate through. A host that is no IP
// address keys as itself.
func HostKey(host string) string {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return "ip:" + host
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		return "ip6:" + netip.PrefixFrom(a, 64).Masked().String()
	}
	return "ip:" + a.String()
}

// RateLimits are the per-credential token buckets. Rate is tokens per second, Burst
// the bucket size. Zero fields take the defaults of DefaultRateLimits.
type RateLimits struct {
	Rate        float64 // every authenticated /api/v1 request
	Burst       int
	CreateRate  float64 // POST /api/v1/invoices, on top of the general bucket
	CreateBurst int
	LoginRate   float64 // POST /api/v1/auth/login, per client IP
	LoginBurst  int
	// The payor API (/api/v1/payments/* and verify with a payment session): per
	// session, and per client address (AddrKey) across sessions.
	PayorRate      float64
	PayorBurst     int
	PayorAddrRate  float64
	PayorAddrBurst int
	// POST verify (an RPC look-up each), on top: per session, and per client
	// (a session's client address, or a merchant credential).
	VerifyRate      float64
	VerifyBurst     int
	VerifyAddrRate  float64
	VerifyAddrBurst int
}

// DefaultRateLimits returns 100 req/s (burst 200) per credential, 25 invoice creates
// per second (burst 50), 10 logins per second (burst 20) per client IP; for the
// payor API 2 req/s (burst 20) per session and 20 req/s (burst 200) per client
// address, and for verify's POST one every 5 s (burst 5) per session and 1 a
// second (burst 20) per client address or merchant credential. A payment page polls its status every
// few seconds and verify is a button: these leave a payor room, a script none.
func DefaultRateLimits() RateLimits {
	return RateLimits{Rate: 100, Burst: 200, CreateRate: 25, CreateBurst: 50, LoginRate: 10, LoginBurst: 20,
		PayorRate: 2, PayorBurst: 20, PayorAddrRate: 20, PayorAddrBurst: 200,
		VerifyRate: 0.2, VerifyBurst: 5, VerifyAddrRate: 1, VerifyAddrBurst: 20}
}

func (l RateLimits) withDefaults() RateLimits {
	d := DefaultRateLimits()
	if l.Rate <= 0 {
		l.Rate = d.Rate
	}
	if l.Burst <= 0 {
		l.Burst = d.Burst
	}
	if l.CreateRate <= 0 {
		l.CreateRate = d.CreateRate
	}
	if l.CreateBurst <= 0 {
		l.CreateBurst = d.CreateBurst
	}
	if l.LoginRate <= 0 {
		l.LoginRate = d.LoginRate
	}
	if l.LoginBurst <= 0 {
		l.LoginBurst = d.LoginBurst
	}
	orDefault(&l.PayorRate, &l.PayorBurst, d.PayorRate, d.PayorBurst)
	orDefault(&l.PayorAddrRate, &l.PayorAddrBurst, d.PayorAddrRate, d.PayorAddrBurst)
	orDefault(&l.VerifyRate, &l.VerifyBurst, d.VerifyRate, d.VerifyBurst)
	orDefault(&l.VerifyAddrRate, &l.VerifyAddrBurst, d.VerifyAddrRate, d.VerifyAddrBurst)
	return l
}

// orDefault gives a rate or burst that is not set its default.
func orDefault(rate *float64, burst *int, defRate float64, defBurst int) {
	if *rate <= 0 {
		*rate = defRate
	}
	if *burst <= 0 {
		*burst = defBurst
	}
}

// AddrKey names the bucket of the request's client address: HostKey of the
// client the trusted proxies name (Proxies.ClientIP).
func (s *Core) AddrKey(r *http.Request) string { return HostKey(s.proxies.ClientIP(r)) }

// LimitLogin takes a token from the login bucket of the request's client
// address (AddrKey).
func (s *Core) LimitLogin(w http.ResponseWriter, r *http.Request) error {
	return Apply(r.Context(), w, s.login, s.AddrKey(r))
}

// LimitGeneral takes a token from p's general bucket, the one every
// authenticated request draws on (streams authenticate by themselves).
func (s *Core) LimitGeneral(w http.ResponseWriter, r *http.Request, p kassa.Principal) error {
	return Apply(r.Context(), w, s.general, LimitKey(p))
}
