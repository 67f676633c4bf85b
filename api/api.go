// Package api wires Kassa's HTTP surfaces into one handler: Config, New and the
// route table (routes.go), where every route of the service can be read in one
// place. The shared plumbing (errors, auth, limits, idempotency, strict JSON) is
// package httpx. Handlers are thin: they decode a request, call a service and
// encode the answer.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/commerceapi"
	"github.com/kassapay/kassa/api/dashboard"
	"github.com/kassapay/kassa/api/eventstream"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/api/merchantapi"
	"github.com/kassapay/kassa/api/payorapi"
	"github.com/kassapay/kassa/api/paypage"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/report"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/stream"
)

// Config holds what the API needs: the public address, the server secret and the
// services behind it.
type Config struct {
	PublicURL   string               // e.g. http://127.0.0.1:8080, used in payment_url
	Secret      []byte               // server secret: JWT HS256 key and payment-session HMAC key
	Merchants   signin.Merchants     // merchant accounts and logins, their second factor and failed sign-ins
	Keys        apikeys.Store        // API keys
	Invoices    kassa.InvoiceService // invoices
	Payments    kassa.PaymentService // receipts, for the latest_payment and payments expansions; nil: none
	Payor       kassa.PayorService   // the payment session endpoints (/api/v1/payments/*)
	Registry    kassa.Registry       // networks and tokens
	Rates       kassa.RateSource     // USD prices of tokens
	Pay         *payment.Service     // deposit addresses, quotes and devnet payments; nil: none
	Refunds     refund.Store         // refunds; nil: none (the refund routes answer 404)
	Idempotency httpx.IdempotencyStore
	Events      kassa.EventService              // the events API and stream replays
	Stream      stream.EventStream              // live events for WebSocket streams
	Webhooks    endpoints.Store                 // webhook endpoints and their delivery log; nil: none
	Commerce    commerce.Service                // search, checkout and orders (/api/commerce); nil: no commerce routes
	Catalog     commerce.Catalog                // retailers per environment, for /api/commerce/status
	Sessions    signin.DashboardSessionStore    // the dashboard's sign-ins; nil: no dashboard
	Overview    report.OverviewStats            // the dashboard's overview figures; required with Sessions
	Health      func(ctx context.Context) error // store ping for /healthz and /readyz; nil: always ok
	Warnings    func() []string                 // what /readyz reports while ready (a short gas wallet); nil: none
	Draining    func() bool                     // true once the instance is stopping: /readyz answers 503 draining; nil: never
	Limits      httpx.RateLimits
	RateStore   httpx.RateStore  // rate budgets shared across instances (PostgreSQL); nil: in memory
	Proxies     httpx.Proxies    // reverse proxies trusted to name the client; nil: loopback (httpx.DefaultProxies)
	Logger      *slog.Logger     // nil: discard
	AccessLog   httpx.AccessLog  // the zero value logs each request at INFO
	Now         func() time.Time // nil: time.Now

	Metrics         httpx.Metrics  // where requests and streams are counted; nil: nowhere
	MetricsHandler  http.Handler   // serves GET /metrics; nil: no such route
	MetricsNetworks httpx.Networks // who may read /metrics (by TCP peer); nil: loopback

	// WebhookTargets is where webhook endpoint urls may point (serve
	// --webhook-allow-private); the zero value allows public addresses only.
	WebhookTargets delivery.Targets

	WSPingInterval     time.Duration         // how often event streams ping; zero: 30 s
	WSKeyCheckInterval time.Duration         // how often a key-backed stream rechecks its key; zero: 5 s
	WSBeforeLiveWrite  func(r *http.Request) // tests only: runs before each live event a stream writes
}

// server is the API's handler state.
type server struct {
	*httpx.Core
	cfg      Config
	signer   payment.SessionSigner
	payments *payment.Service

	merchant *merchantapi.API     // the merchant API: login, keys, settings, invoices, events, webhooks, devnet
	commerce *commerceapi.API     // the commerce API, when cfg.Commerce is set
	streams  *eventstream.API     // WebSocket tokens and event streams
	payor    *payorapi.API        // /api/v1/payments/* and verify
	page     *paypage.Page        // the hosted payment page, /pay/*
	board    *dashboard.Dashboard // the merchant dashboard, /dashboard/*, when cfg.Sessions is set
}

// New builds every surface over cfg and returns the service's HTTP handler.
func New(cfg Config) http.Handler {
	var keys kassa.APIKeyService
	if cfg.Keys != nil {
		keys = apikeys.Over(cfg.Keys)
	}
	core := httpx.NewCore(httpx.CoreConfig{Secret: cfg.Secret, Merchants: cfg.Merchants, Keys: keys,
		Idempotency: cfg.Idempotency, Health: cfg.Health, Warnings: cfg.Warnings, Draining: cfg.Draining, Limits: cfg.Limits, RateStore: cfg.RateStore, Logger: cfg.Logger, AccessLog: cfg.AccessLog, Now: cfg.Now,
		Metrics: cfg.Metrics, HSTS: strings.HasPrefix(strings.ToLower(cfg.PublicURL), "https://"),
		Proxies: cfg.Proxies})
	s := &server{Core: core, cfg: cfg, signer: payment.NewSessionSigner(cfg.Secret),
		payments: cfg.Pay}
	if s.payments == nil { // quotes need wallets and addresses: none without them
		s.payments = &payment.Service{Registry: cfg.Registry, Rates: cfg.Rates, Invoices: cfg.Invoices, Payments: cfg.Payments}
	}
	if s.payments.Now == nil {
		s.payments.Now = core.Now
	}
	signIn := signin.New(cfg.Merchants, cfg.Sessions, core.Now) // both surfaces' one sign-in rule
	accounts := merchants.New(cfg.Merchants, signIn)            // and their one account rule
	var webhooks kassa.WebhookService
	if cfg.Webhooks != nil {
		webhooks = endpoints.Over(cfg.Webhooks, cfg.WebhookTargets)
	}
	var refunds *refund.Service
	if cfg.Refunds != nil {
		refunds = &refund.Service{Store: cfg.Refunds, Payments: cfg.Payments, Registry: cfg.Registry, Rates: cfg.Rates,
			Signer: s.signer, PublicURL: cfg.PublicURL}
	}
	reports := report.Source{Invoices: cfg.Invoices, Payments: cfg.Payments, Refunds: cfg.Refunds, Registry: cfg.Registry}
	s.merchant = merchantapi.New(merchantapi.Config{Core: core, PublicURL: cfg.PublicURL, Signer: s.signer,
		SignIn: signIn, Merchants: cfg.Merchants, Accounts: accounts, Keys: keys, Invoices: cfg.Invoices, Payments: cfg.Payments, Events: cfg.Events,
		Webhooks: webhooks, Pay: s.payments, Reports: reports, Refunds: refunds})
	if cfg.Commerce != nil {
		s.commerce = commerceapi.New(commerceapi.Config{Shop: cfg.Commerce, Catalog: cfg.Catalog,
			Invoices: cfg.Invoices, Signer: s.signer, PublicURL: cfg.PublicURL, Now: core.Now})
	}
	s.streams = eventstream.New(eventstream.Config{Core: core, Secret: cfg.Secret, PublicURL: cfg.PublicURL,
		Keys: keys, Events: cfg.Events, Stream: cfg.Stream, PingInterval: cfg.WSPingInterval,
		KeyCheckInterval: cfg.WSKeyCheckInterval, BeforeLiveWrite: cfg.WSBeforeLiveWrite})
	tracker := payment.Tracker{Payments: cfg.Payments, Registry: cfg.Registry}
	var rates kassa.RateSource // what payors are offered: the rates, less unwatched mainnet networks
	if cfg.Rates != nil {
		rates = s.payments
	}
	s.payor = payorapi.New(payorapi.Config{Core: core, Signer: s.signer, Payor: cfg.Payor,
		Registry: cfg.Registry, Rates: rates, Pay: s.payments, Tracker: tracker, PublicURL: cfg.PublicURL,
		IconURL: paypage.IconURL})
	s.page = paypage.New(paypage.Config{Signer: s.signer, Payor: cfg.Payor, Registry: cfg.Registry, Rates: rates,
		Pay: s.payments, Tracker: tracker, Stream: cfg.Stream, Logger: core.Log(), Now: core.Now,
		Refunds: refunds, LimitClaim: core.LimitPayorAddr})
	if cfg.Sessions != nil {
		s.board = dashboard.New(dashboard.Config{Core: core, SignIn: signIn, Merchants: cfg.Merchants, Accounts: accounts, Sessions: cfg.Sessions,
			Invoices: cfg.Invoices, Keys: keys, Webhooks: webhooks, Payments: cfg.Payments, Events: cfg.Events,
			Registry: cfg.Registry, Signer: s.signer, Commerce: cfg.Commerce, Idempotency: cfg.Idempotency,
			Stats: cfg.Overview, Stream: cfg.Stream, Pay: s.payments, Refunds: refunds,
			Reports:   reports,
			PublicURL: cfg.PublicURL, Log: core.Log(), Now: core.Now})
	}
	s.routes()
	return core
}
