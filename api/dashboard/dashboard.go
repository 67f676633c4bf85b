package dashboard

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/report"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/stream"
)

// Config holds what the dashboard needs.
type Config struct {
	Core      *httpx.Core                  // login rate limits
	SignIn    *signin.Service              // sign-in, re-authentication, password and two-step changes
	Merchants kassa.MerchantService        // the signed-in merchant
	Accounts  *merchants.Service           // settings changes
	Sessions  signin.DashboardSessionStore // server-side sessions and the second factor
	Invoices  kassa.InvoiceService
	Keys      kassa.APIKeyService
	Webhooks  kassa.WebhookService
	Payments  kassa.PaymentService  // an invoice's receipts
	Pay       *payment.Service      // accepting and dismissing money set aside
	Refunds   *refund.Service       // refunds, the API's service; nil: none (no Refund actions, 404)
	Events    kassa.EventService    // an invoice's timeline
	Stats     report.OverviewStats  // the overview's chart, failed deliveries and an invoice's deliveries
	Stream    stream.EventStream    // wakes an invoice page's live updates; nil: they poll
	Registry  kassa.Registry        // networks' explorers
	Reports   report.Source         // the CSV reports of the reports page
	Signer    payment.SessionSigner // payment links of new invoices
	Commerce  commerce.Service      // orders; nil: no commerce, the orders pages are empty
	// Idempotency keeps the keys of forms that must not act twice (an order's cancel).
	Idempotency httpx.IdempotencyStore
	PublicURL   string
	Log         *slog.Logger
	Now         func() time.Time
}

// Dashboard serves the merchant dashboard.
type Dashboard struct {
	cfg    Config
	cop    *http.CrossOriginProtection
	secure bool // cookies only over https
}

// New returns the dashboard over cfg; Core, Log and Now must be set.
func New(cfg Config) *Dashboard {
	d := &Dashboard{cfg: cfg, cop: http.NewCrossOriginProtection(), secure: strings.HasPrefix(cfg.PublicURL, "https://")}
	d.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.errorPage(w, r, nil, http.StatusForbidden, "This form was posted from another site, so it was refused.")
	}))
	return d
}

// Routes registers every dashboard route with handle (the route table in
// api/routes.go calls it).
func (d *Dashboard) Routes(handle func(pattern string, h http.HandlerFunc)) {
	handle("GET /dashboard/assets/{hash}/{name}", serveAsset)
	handle("GET /dashboard/login", d.loginForm)
	handle("POST /dashboard/login", d.post(d.login))
	handle("GET /dashboard/login/code", d.loginCodeForm)
	handle("POST /dashboard/login/code", d.post(d.loginCode))
	handle("POST /dashboard/logout", d.post(d.signedIn(d.logout)))
	handle("POST /dashboard/environment", d.post(d.signedIn(d.switchEnvironment)))
	handle("GET /dashboard", d.signedIn(d.overview))
	handle("GET /dashboard/invoices", d.signedIn(d.invoices))
	handle("GET /dashboard/invoices/new", d.signedIn(d.newInvoice))
	handle("POST /dashboard/invoices/new", d.post(d.signedIn(d.createInvoice)))
	handle("GET /dashboard/invoices/{id}", d.signedIn(d.invoice))
	handle("POST /dashboard/invoices/{id}/cancel", d.post(d.signedIn(d.cancelInvoice)))
	handle("POST /dashboard/invoices/{id}/payments/{paymentId}/accept", d.post(d.signedIn(d.acceptPayment)))
	handle("POST /dashboard/invoices/{id}/payments/{paymentId}/dismiss", d.post(d.signedIn(d.dismissPayment)))
	handle("GET /dashboard/invoices/{id}/refund", d.signedIn(d.refundNew))
	handle("POST /dashboard/invoices/{id}/refund", d.post(d.signedIn(d.refundPost)))
	handle("GET /dashboard/invoices/{id}/refunds/{refundId}", d.signedIn(d.refundPage))
	handle("POST /dashboard/invoices/{id}/refunds/{refundId}/cancel", d.post(d.signedIn(d.cancelRefund)))
	handle("POST /dashboard/invoices/{id}/refunds/{refundId}/own-wallet", d.post(d.signedIn(d.payRefundOwnWallet)))
	handle("POST /dashboard/invoices/{id}/refunds/{refundId}/kassa-pays", d.post(d.signedIn(d.letKassaPayRefund)))
	handle("GET /dashboard/orders", d.signedIn(d.orders))
	handle("GET /dashboard/orders/{id}", d.signedIn(d.order))
	handle("POST /dashboard/orders/{id}/cancel", d.post(d.signedIn(d.cancelOrder)))
	handle("POST /dashboard/orders/{id}/simulate", d.post(d.signedIn(d.simulateOrder)))
	handle("GET /dashboard/settings", d.signedIn(d.settings))
	handle("POST /dashboard/settings", d.post(d.signedIn(d.saveSettings)))
	handle("POST /dashboard/settings/password", d.post(d.signedIn(d.changePassword)))
	handle("POST /dashboard/settings/two-step/setup", d.post(d.signedIn(d.setupTwoStep)))
	handle("POST /dashboard/settings/two-step/enable", d.post(d.signedIn(d.enableTwoStep)))
	handle("POST /dashboard/settings/two-step/disable", d.post(d.signedIn(d.disableTwoStep)))
	handle("POST /dashboard/settings/sign-out-everywhere", d.post(d.signedIn(d.signOutEverywhere)))
	handle("POST /dashboard/invoices/{id}/resend", d.post(d.signedIn(d.resendDelivery)))
	handle("GET /dashboard/invoices/{id}/live", d.watching(d.invoiceLive))
	handle("GET /dashboard/developers/api-keys", d.signedIn(d.apiKeys))
	handle("POST /dashboard/developers/api-keys", d.post(d.signedIn(d.createAPIKey)))
	handle("POST /dashboard/developers/api-keys/{id}/revoke", d.post(d.signedIn(d.revokeAPIKey)))
	handle("GET /dashboard/developers/webhooks", d.signedIn(d.webhooks))
	handle("POST /dashboard/developers/webhooks", d.post(d.signedIn(d.createWebhook)))
	handle("GET /dashboard/developers/webhooks/{id}", d.signedIn(d.webhook))
	handle("POST /dashboard/developers/webhooks/{id}/{action}", d.post(d.signedIn(d.webhookAction)))
	handle("GET /dashboard/developers/events", d.signedIn(d.events))
	handle("GET /dashboard/reports", d.signedIn(d.reports))
	handle("GET /dashboard/reports/{name}", d.signedIn(d.reportCSV))
}

// post refuses cross-origin form posts (403) before h runs.
func (d *Dashboard) post(h http.HandlerFunc) http.HandlerFunc {
	guarded := d.cop.Handler(h)
	return guarded.ServeHTTP
}

// redirect answers a form post or a sign-in check: 303 See Other to path.
func redirect(w http.ResponseWriter, r *http.Request, path string) {
	http.Redirect(w, r, path, http.StatusSeeOther)
}
