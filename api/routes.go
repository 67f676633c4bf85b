package api

import (
	"net/http"
	"sync"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/api/openapi"
	"github.com/kassapay/kassa/api/paypage"
	"github.com/kassapay/kassa/api/reference"
)

// routes is the route table: every route of the service, with the wrappers that
// authenticate (Merchant, AnyScope, JWT, Commerce, payor Session), limit and make it
// idempotent. Handlers are thin (decode, call a service, encode); errors are
// rendered by httpx from one table. To add an endpoint, add its line here and its
// handler to the surface it belongs to.
func (s *server) routes() {
	// Health.
	s.HandleHTTP("GET /healthz", s.Health)
	s.HandleHTTP("GET /readyz", s.Ready)
	// Prometheus metrics, for the allowed networks only; others get the 404 of an
	// unknown URL, whatever the method (so the pattern has none: OnlyFrom answers
	// 405 to allowed clients only).
	if h := s.cfg.MetricsHandler; h != nil {
		nets := s.cfg.MetricsNetworks
		if nets == nil {
			nets = httpx.LoopbackNetworks
		}
		s.HandleHTTP("/metrics", httpx.OnlyFrom(nets, h))
	}

	// The OpenAPI document of every route here (api/openapi/openapi.json).
	s.HandleHTTP("GET /api/v1/openapi.json", openapi.Serve)
	// The reference page rendered from it (HTML, no script).
	s.HandleHTTP("GET /docs", func(w http.ResponseWriter, r *http.Request) { referencePage().ServeHTTP(w, r) })
	s.HandleHTTP("GET /docs/assets/{hash}/{name}", func(w http.ResponseWriter, r *http.Request) { referencePage().ServeAsset(w, r) })

	// Merchant API (/api/v1): dashboard login, keys, settings, invoices, events,
	// webhook endpoints, devnet payments.
	s.Handle("POST /api/v1/auth/login", s.merchant.Login)
	s.Handle("POST /api/v1/auth/sign-out-everywhere", s.JWT(s.merchant.SignOutEverywhere))

	s.Handle("GET /api/v1/api-keys", s.JWT(s.merchant.ListKeys))
	s.Handle("POST /api/v1/api-keys", s.JWT(s.merchant.CreateKey))
	s.Handle("POST /api/v1/api-keys/{keyId}/revoke", s.JWT(s.merchant.RevokeKey))

	s.Handle("GET /api/v1/merchant", s.JWT(s.merchant.GetMerchant))
	s.Handle("PATCH /api/v1/merchant", s.JWT(s.merchant.PatchMerchant))

	s.Handle("POST /api/v1/invoices", s.Merchant(s.LimitCreate(
		s.Idempotent(httpx.IdempotencyOptions{Required: true, UUID: true, SavesWithChange: true, StoreOnly: true}, s.merchant.CreateInvoice))))
	s.Handle("GET /api/v1/invoices", s.Merchant(s.merchant.ListInvoices))
	s.Handle("GET /api/v1/reports/invoices.csv", s.Merchant(s.merchant.InvoicesCSV))
	s.Handle("GET /api/v1/reports/payments.csv", s.Merchant(s.merchant.PaymentsCSV))
	s.Handle("GET /api/v1/reports/refunds.csv", s.Merchant(s.merchant.RefundsCSV))
	s.Handle("GET /api/v1/invoices/totals", s.Merchant(s.merchant.InvoiceTotals))
	s.Handle("GET /api/v1/invoices/{invoiceId}", s.Merchant(s.merchant.GetInvoice))
	// "customer/{customerId}" and "{invoiceId}/status" overlap as ServeMux patterns,
	// so one route serves both.
	s.Handle("GET /api/v1/invoices/{first}/{rest...}", s.Merchant(s.merchant.InvoiceSubresource))
	s.Handle("POST /api/v1/invoices/{invoiceId}/cancel", s.Merchant(s.merchant.CancelInvoice))
	s.Handle("POST /api/v1/invoices/{invoiceId}/payments/{paymentId}/accept", s.Merchant(s.merchant.AcceptPayment))
	s.Handle("POST /api/v1/invoices/{invoiceId}/payments/{paymentId}/dismiss", s.Merchant(s.merchant.DismissPayment))

	s.Handle("POST /api/v1/invoices/{invoiceId}/refunds", s.Merchant(
		s.Idempotent(httpx.IdempotencyOptions{Required: true, UUID: true}, httpx.WithoutClaim(s.merchant.CreateRefund))))
	s.Handle("GET /api/v1/refunds/{refundId}", s.Merchant(s.merchant.GetRefund))
	s.Handle("POST /api/v1/refunds/{refundId}/cancel", s.Merchant(s.merchant.CancelRefund))
	s.Handle("POST /api/v1/refunds/{refundId}/claim", s.merchant.ClaimRefund)

	s.Handle("POST /api/v1/devnet/invoices/{invoiceId}/payments", s.Merchant(s.merchant.DevnetPay))

	s.Handle("GET /api/v1/events", s.AnyScope(s.merchant.ListEvents))
	s.Handle("GET /api/v1/events/{eventId}", s.AnyScope(s.merchant.GetEvent))
	s.Handle("POST /api/v1/events/{eventId}/resend", s.Merchant(s.merchant.ResendEvent))
	s.Handle("POST /api/v1/webhook-endpoints", s.Merchant(s.merchant.CreateEndpoint))
	s.Handle("GET /api/v1/webhook-endpoints", s.Merchant(s.merchant.ListEndpoints))
	s.Handle("GET /api/v1/webhook-endpoints/{endpointId}", s.Merchant(s.merchant.GetEndpoint))
	s.Handle("PATCH /api/v1/webhook-endpoints/{endpointId}", s.Merchant(s.merchant.UpdateEndpoint))
	s.Handle("DELETE /api/v1/webhook-endpoints/{endpointId}", s.Merchant(s.merchant.DeleteEndpoint))
	s.Handle("POST /api/v1/webhook-endpoints/{endpointId}/rotate-secret", s.Merchant(s.merchant.RotateEndpointSecret))
	s.Handle("GET /api/v1/webhook-endpoints/{endpointId}/deliveries", s.Merchant(s.merchant.ListDeliveries))

	// Payor API (/api/v1/payments): the payment session (x-session-token, x-signature).
	s.Handle("GET /api/v1/payments/invoice", s.payor.Session(s.payor.Invoice))
	s.Handle("GET /api/v1/payments/payment-status", s.payor.Session(s.payor.PaymentStatus))
	s.Handle("GET /api/v1/payments/available-tokens", s.payor.Session(s.payor.AvailableTokens))
	s.Handle("POST /api/v1/payments/payment-address", s.payor.Session(s.payor.PaymentAddress))
	s.Handle("GET /api/v1/payments/questions", s.payor.Session(s.payor.Questions))
	s.Handle("GET /api/v1/invoice/{invoiceId}/verify", s.payor.Verify)
	s.Handle("POST /api/v1/invoice/{invoiceId}/verify", s.payor.Verify)
	s.Handle("POST /api/v1/payments/submit-form", s.payor.Session(s.payor.SubmitForm))
	s.Handle("GET /api/v1/payments/customer-email", s.payor.Session(s.payor.CustomerEmail))
	s.Handle("POST /api/v1/payments/customer-email", s.payor.Session(s.payor.SetCustomerEmail))

	// WebSocket event streams.
	s.Handle("POST /api/v1/ws/token", s.AnyScope(s.streams.MintToken))
	s.Handle("GET /ws/merchant/events", s.streams.Stream(kassa.ScopeMerchant))
	s.Handle("GET /ws/commerce/events", s.streams.Stream(kassa.ScopeCommerce))

	// Commerce API (/api/commerce): commerce-scope keys, {success, data} envelope,
	// errors as {success: false, error} (unknown routes under it too).
	s.Surface("/api/commerce/", httpx.CommerceEnvelope)
	if c := s.commerce; c != nil {
		s.Handle("GET /api/commerce/status", s.Commerce(c.Status))
		s.Handle("GET /api/commerce/search", s.Commerce(c.Search))
		s.Handle("POST /api/commerce/merchant/checkout/estimate", s.Commerce(c.CheckoutEstimate))
		s.Handle("POST /api/commerce/merchant/checkout/address", s.Commerce(c.CheckoutAddress))
		s.Handle("POST /api/commerce/merchant/checkout/invoice", s.Commerce(s.Idempotent(httpx.IdempotencyOptions{SavesWithChange: true}, c.CheckoutInvoice)))
		s.Handle("GET /api/commerce/merchant/orders", s.Commerce(c.Orders))
		s.Handle("GET /api/commerce/merchant/orders/{orderId}", s.Commerce(c.Order))
		s.Handle("POST /api/commerce/merchant/orders/{orderId}/cancel",
			s.Commerce(s.Idempotent(httpx.IdempotencyOptions{Required: true}, httpx.WithoutClaim(c.CancelOrder))))
		s.Handle("GET /api/commerce/merchant/payments/{orderId}/status", s.Commerce(c.OrderPaymentStatus))
		s.Handle("POST /api/commerce/devnet/orders/{orderId}/simulate", s.Commerce(c.SimulateOrder))
	}

	// Hosted payment page (/pay), HTML, with its assets.
	s.HandleHTTP("GET /pay/assets/{hash}/{name...}", paypage.ServeAsset)
	s.HandleHTTP("GET /static/tokens/{file}", paypage.ServeAsset)
	s.HandleHTTP("GET /pay/{invoiceId}", s.page.Show)
	s.HandleHTTP("POST /pay/{invoiceId}/token", s.page.Form("token", s.page.ChooseToken))
	s.HandleHTTP("POST /pay/{invoiceId}/answers", s.page.Form("answers", s.page.SaveAnswers))
	s.HandleHTTP("POST /pay/{invoiceId}/email", s.page.Form("email", s.page.SaveEmail))
	s.HandleHTTP("GET /pay/{invoiceId}/qr.png", s.page.QR)
	s.HandleHTTP("GET /pay/{invoiceId}/events", s.page.Events)
	// The refund claim page (/refund), HTML: the payor's address for a refund,
	// then the refund followed to confirmed (the claim token is the credential).
	s.HandleHTTP("GET /refund/{refundId}", s.page.ShowRefund)
	s.HandleHTTP("POST /refund/{refundId}", s.page.ClaimRefund)
	s.HandleHTTP("GET /refund/{refundId}/events", s.page.RefundEvents)

	// Merchant dashboard (/dashboard), HTML: its route table is in api/dashboard.
	if s.board != nil {
		s.board.Routes(s.HandleHTTP)
	}
}

// referencePage is /docs, rendered from the embedded OpenAPI document on its
// first request, not at start: the rendered page holds about 1.4 MiB of live heap
// that a server nobody reads the reference of need not carry. The api/openapi
// tests render it too, so a document it cannot read fails there.
var referencePage = sync.OnceValue(func() *reference.Page {
	p, err := reference.New(openapi.Document)
	if err != nil {
		panic(err)
	}
	return p
})
