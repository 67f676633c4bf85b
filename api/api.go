// Package api is Kassa's merchant HTTP API (/api/v1): dashboard login, API keys,
// merchant settings and invoices. Handlers are thin: they decode a request, call a
// kassa service and encode the answer; errors are rendered from one table that maps
// kassa.ErrorKind to status codes.
package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"kassa"
	"kassa/commerce"
)

// Config holds what the API needs: the public address, the server secret and the
// services behind it.
type Config struct {
	PublicURL string                // e.g. http://127.0.0.1:8080, used in payment_url
	Secret    []byte                // server secret: JWT HS256 key and payment-session HMAC key
	Merchants kassa.MerchantService // merchant accounts and logins
	Keys      kassa.APIKeyService   // API keys
	Invoices  kassa.InvoiceService  // invoices
	Payments  kassa.PaymentService  // receipts, for the latest_payment and payments expansions; nil: none
	Payor     kassa.PayorService    // the payment session endpoints (/api/v1/payments/*)
	Registry  kassa.Registry        // networks and tokens
	Rates     kassa.RateSource      // USD prices of tokens
	Addresses kassa.AddressService  // deposit addresses and token locks
	// Wallets derive deposit addresses, one per environment.
	Wallets     map[kassa.Environment]kassa.AddressDeriver
	Idempotency kassa.IdempotencyStore
	Events      kassa.EventService              // the events API and stream replays
	Stream      kassa.EventStream               // live events for WebSocket streams
	Webhooks    kassa.WebhookService            // webhook endpoints and their delivery log
	Commerce    commerce.Service                // search, checkout and orders (/api/commerce); nil: no commerce routes
	Catalog     commerce.Catalog                // retailers per environment, for /api/commerce/status
	Health      func(ctx context.Context) error // store ping for /healthz and /readyz; nil: always ok
	Limits      RateLimits
	Logger      *slog.Logger     // nil: discard
	Now         func() time.Time // nil: time.Now
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
}

// DefaultRateLimits returns 100 req/s (burst 200) per credential, 25 invoice creates
// per second (burst 50), and 10 logins per second (burst 20) per client IP.
func DefaultRateLimits() RateLimits {
	return RateLimits{Rate: 100, Burst: 200, CreateRate: 25, CreateBurst: 50, LoginRate: 10, LoginBurst: 20}
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
	return l
}

// server is the API's handler state.
type server struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	signer kassa.SessionSigner
	mux    *http.ServeMux

	general, create, login *limiter

	touchMu sync.Mutex
	touched map[string]time.Time // key id → last recorded use

	keyCheckMu sync.Mutex
	keyChecks  map[string]keyCheck // key id → latest status check of open streams
}

// New returns the HTTP handler of the merchant API.
func New(cfg Config) http.Handler {
	s := &server{cfg: cfg, log: cfg.Logger, now: cfg.Now, mux: http.NewServeMux(), touched: map[string]time.Time{},
		keyChecks: map[string]keyCheck{}}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.signer = kassa.NewSessionSigner(cfg.Secret)
	l := cfg.Limits.withDefaults()
	s.general = newLimiter(l.Rate, l.Burst, s.now)
	s.create = newLimiter(l.CreateRate, l.CreateBurst, s.now)
	s.login = newLimiter(l.LoginRate, l.LoginBurst, s.now)
	s.routes()
	return s
}

// apiFunc is a handler that returns its error for the caller to render.
type apiFunc func(w http.ResponseWriter, r *http.Request) error

func (s *server) handle(pattern string, h apiFunc) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *server) routes() {
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("GET /readyz", s.health)
	s.handle("POST /api/v1/auth/login", s.loginHandler)

	s.handle("GET /api/v1/api-keys", s.jwtOnly(s.listKeys))
	s.handle("POST /api/v1/api-keys", s.jwtOnly(s.createKey))
	s.handle("POST /api/v1/api-keys/{keyId}/revoke", s.jwtOnly(s.revokeKey))

	s.handle("GET /api/v1/merchant", s.jwtOnly(s.getMerchant))
	s.handle("PATCH /api/v1/merchant", s.jwtOnly(s.patchMerchant))

	s.handle("POST /api/v1/invoices", s.merchantAuth(s.limitCreate(
		s.idempotent(idempotencyOptions{required: true, uuid: true}, s.createInvoice))))
	s.handle("GET /api/v1/invoices", s.merchantAuth(s.listInvoices))
	s.handle("GET /api/v1/invoices/totals", s.merchantAuth(s.invoiceTotals))
	s.handle("GET /api/v1/invoices/{invoiceId}", s.merchantAuth(s.getInvoice))
	// "customer/{customerId}" and "{invoiceId}/status" overlap as ServeMux patterns,
	// so one route serves both.
	s.handle("GET /api/v1/invoices/{first}/{rest...}", s.merchantAuth(s.invoiceSubresource))
	s.handle("POST /api/v1/invoices/{invoiceId}/cancel", s.merchantAuth(s.cancelInvoice))

	s.handle("POST /api/v1/devnet/invoices/{invoiceId}/payments", s.merchantAuth(s.devnetPay))

	s.handle("GET /api/v1/events", s.anyScopeAuth(s.listEvents))
	s.handle("GET /api/v1/events/{eventId}", s.anyScopeAuth(s.getEvent))
	s.handle("POST /api/v1/events/{eventId}/resend", s.merchantAuth(s.resendEvent))
	s.handle("POST /api/v1/webhook-endpoints", s.merchantAuth(s.createEndpoint))
	s.handle("GET /api/v1/webhook-endpoints", s.merchantAuth(s.listEndpoints))
	s.handle("GET /api/v1/webhook-endpoints/{endpointId}", s.merchantAuth(s.getEndpoint))
	s.handle("PATCH /api/v1/webhook-endpoints/{endpointId}", s.merchantAuth(s.updateEndpoint))
	s.handle("DELETE /api/v1/webhook-endpoints/{endpointId}", s.merchantAuth(s.deleteEndpoint))
	s.handle("POST /api/v1/webhook-endpoints/{endpointId}/rotate-secret", s.merchantAuth(s.rotateEndpointSecret))
	s.handle("GET /api/v1/webhook-endpoints/{endpointId}/deliveries", s.merchantAuth(s.listDeliveries))
	s.wsRoutes()

	s.handle("GET /api/v1/payments/invoice", s.payorAuth(s.payorInvoice))
	s.handle("GET /api/v1/payments/payment-status", s.payorAuth(s.paymentStatusHandler))
	s.handle("GET /api/v1/payments/available-tokens", s.payorAuth(s.availableTokens))
	s.handle("POST /api/v1/payments/payment-address", s.payorAuth(s.paymentAddress))
	s.handle("GET /api/v1/payments/questions", s.payorAuth(s.questions))
	s.handle("GET /api/v1/invoice/{invoiceId}/verify", s.verify)
	s.handle("POST /api/v1/invoice/{invoiceId}/verify", s.verify)
	s.handle("POST /api/v1/payments/submit-form", s.payorAuth(s.submitForm))
	s.handle("GET /api/v1/payments/customer-email", s.payorAuth(s.getCustomerEmail))
	s.handle("POST /api/v1/payments/customer-email", s.payorAuth(s.setCustomerEmail))
	if s.cfg.Commerce != nil {
		s.commerceRoutes()
	}
	s.pageRoutes()
}

// health answers /healthz and /readyz from the store ping.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := s.cfg.Health(ctx); err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "health check failed",
				slog.String("request_id", requestID(r.Context())), slog.String("error", err.Error()))
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
