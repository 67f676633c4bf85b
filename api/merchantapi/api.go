package merchantapi

import (
	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/report"
	"github.com/kassapay/kassa/signin"
)

// Config holds what the merchant API uses.
type Config struct {
	Core      *httpx.Core           // dashboard tokens (IssueToken), the login limit (LimitLogin) and the clock (Now)
	PublicURL string                // base of a new invoice's payment_url
	Signer    payment.SessionSigner // signs the payment session of a new invoice
	SignIn    *signin.Service       // login, re-authentication, password and two-step changes
	Merchants kassa.MerchantService // the merchant of a request
	Accounts  *merchants.Service    // merchant settings changes
	Keys      kassa.APIKeyService   // API keys
	Invoices  kassa.InvoiceService  // invoices
	Payments  kassa.PaymentService  // receipts, for the latest_payment and payments expansions; nil: none
	Events    kassa.EventService    // the events list and lookups
	Webhooks  kassa.WebhookService  // webhook endpoints, their delivery log and event resends
	Pay       *payment.Service      // devnet payments (DevnetPay)
	Reports   report.Source         // the CSV reports
	Refunds   *refund.Service       // refunds
}

// API serves the merchant routes; its handlers are httpx.Func values for the route
// table, each behind the authentication the table puts in front of it.
type API struct {
	core      *httpx.Core
	publicURL string
	signer    payment.SessionSigner
	signIn    *signin.Service
	merchants kassa.MerchantService
	accounts  *merchants.Service
	keys      kassa.APIKeyService
	invoices  kassa.InvoiceService
	payments  kassa.PaymentService
	events    kassa.EventService
	webhooks  kassa.WebhookService
	pay       *payment.Service
	reports   report.Source
	refunds   *refund.Service
}

// New returns the merchant API over cfg.
func New(cfg Config) *API {
	return &API{core: cfg.Core, publicURL: cfg.PublicURL, signer: cfg.Signer, signIn: cfg.SignIn, merchants: cfg.Merchants, accounts: cfg.Accounts,
		keys: cfg.Keys, invoices: cfg.Invoices, payments: cfg.Payments, events: cfg.Events,
		webhooks: cfg.Webhooks, pay: cfg.Pay, reports: cfg.Reports, refunds: cfg.Refunds}
}
