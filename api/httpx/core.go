package httpx

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// Core is the plumbing every HTTP surface shares: the outer layer (request ids,
// access log, panic recovery, body limits, JSON 404 and 405), the error table and
// envelopes, authentication, rate limits and idempotency. It is the service's
// http.Handler; the route table in package api registers every route on it.
type Core struct {
	log         *slog.Logger
	access      AccessLog
	now         func() time.Time
	secret      []byte
	merchants   kassa.MerchantService
	keys        kassa.APIKeyService
	idempotency kassa.IdempotencyStore
	claims      *runningClaims        // idempotency keys held by requests running here
	sealer      *kassa.ResponseSealer // seals the responses saved under idempotency keys
	healthCheck func(ctx context.Context) error
	warnings    func() []string
	draining    func() bool
	mux         *http.ServeMux

	general, create, login RateLimiter
	payor                  payorLimiters

	surfaces []surface // path prefixes whose errors take another envelope
	hsts     bool      // answers carry Strict-Transport-Security (the public URL is https)
	proxies  Proxies   // peers trusted to name the client (X-Forwarded-For)

	metrics   Metrics                             // nil: nothing is counted
	recorders map[string]func(int, time.Duration) // by registered pattern; written only while routes are registered
	unmatched func(int, time.Duration)            // the recorder of UnmatchedRoute

	touchMu sync.Mutex
	touched map[string]time.Time // key id → last recorded use
}

// CoreConfig is what the plumbing needs.
type CoreConfig struct {
	Secret      []byte                          // JWT HS256 key and the key saved idempotent responses are sealed under
	Merchants   kassa.MerchantService           // dashboard token owners
	Keys        kassa.APIKeyService             // API key authentication
	Idempotency kassa.IdempotencyStore          // Idempotency-Key claims
	Health      func(ctx context.Context) error // store ping for /healthz and /readyz; nil: always ok
	Warnings    func() []string                 // what /readyz reports while staying ready (a short gas wallet); nil: none
	Draining    func() bool                     // true while the instance drains before stopping: /readyz is 503; nil: never
	Limits      RateLimits
	RateStore   RateStore        // budgets shared by every instance on the database; nil: in memory
	Logger      *slog.Logger     // nil: discard
	AccessLog   AccessLog        // the zero value logs each request at INFO
	Now         func() time.Time // nil: time.Now
	Metrics     Metrics          // requests and streams counted; nil: none
	// HSTS makes every answer carry Strict-Transport-Security (HSTSValue): set it
	// when the public URL is https, never over plain http.
	HSTS bool
	// Proxies are the reverse proxies trusted to name the client in
	// X-Forwarded-For, for every per-address limit; nil: DefaultProxies.
	Proxies Proxies
}

// HSTSValue is the Strict-Transport-Security of a service whose public URL is
// https: two years, subdomains included.
const HSTSValue = "max-age=63072000; includeSubDomains"

// NewCore returns the plumbing with no routes yet.
func NewCore(cfg CoreConfig) *Core {
	c := &Core{log: cfg.Logger, access: cfg.AccessLog, now: cfg.Now, mux: http.NewServeMux(), touched: map[string]time.Time{},
		secret: cfg.Secret, merchants: cfg.Merchants, keys: cfg.Keys, idempotency: cfg.Idempotency, claims: newRunningClaims(),
		healthCheck: cfg.Health, warnings: cfg.Warnings, draining: cfg.Draining, sealer: kassa.NewResponseSealer(cfg.Secret),
		metrics: cfg.Metrics, recorders: map[string]func(int, time.Duration){}, hsts: cfg.HSTS, proxies: cfg.Proxies}
	if c.proxies == nil {
		c.proxies = DefaultProxies
	}
	if c.metrics != nil {
		c.unmatched = c.metrics.Route(UnmatchedRoute)
	}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.now == nil {
		c.now = time.Now
	}
	l := cfg.Limits.withDefaults()
	limiter := func(name string, rate float64, burst int) RateLimiter {
		if cfg.RateStore == nil {
			return NewLimiter(rate, burst, c.now)
		}
		sl := NewSharedLimiter(cfg.RateStore, name, rate, burst)
		sl.now = c.now
		return sl
	}
	c.general = limiter("general", l.Rate, l.Burst)
	c.create = limiter("create", l.CreateRate, l.CreateBurst)
	c.login = limiter("login", l.LoginRate, l.LoginBurst)
	c.payor = payorLimiters{session: limiter("payor", l.PayorRate, l.PayorBurst),
		addr:       limiter("payor_addr", l.PayorAddrRate, l.PayorAddrBurst),
		verify:     limiter("verify", l.VerifyRate, l.VerifyBurst),
		verifyAddr: limiter("verify_addr", l.VerifyAddrRate, l.VerifyAddrBurst)}
	return c
}

// Now is the current time of the service's clock.
func (s *Core) Now() time.Time { return s.now() }

// Log is the service's logger.
func (s *Core) Log() *slog.Logger { return s.log }

// HandleHTTP registers a plain handler, one that renders its own errors (health,
// the payment page, WebSocket upgrades).
func (s *Core) HandleHTTP(pattern string, h http.HandlerFunc) {
	s.mux.HandleFunc(pattern, h)
	s.track(pattern)
}

// Func is a handler that returns its error for the caller to render.
type Func func(w http.ResponseWriter, r *http.Request) error

// Handle registers a handler whose errors are rendered from the error table.
func (s *Core) Handle(pattern string, h Func) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.WriteError(w, r, err)
		}
	})
	s.track(pattern)
}
