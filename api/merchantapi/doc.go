// Package merchantapi is the merchant API (/api/v1), what a merchant's backend and
// dashboard call: dashboard login, API keys (docs/api.md 4.1), merchant settings,
// invoices (create, list, totals, read, status, cancel; 4.2), events (list, read,
// resend; 4.5), webhook endpoints with their delivery log, and devnet payments. Its
// routes, with the wrappers that authenticate (httpx.Core.Merchant for API keys,
// JWT for the dashboard, AnyScope for events), limit and make them idempotent, are
// listed in package api's route table (api/routes.go).
//
//   - api.go: API, Config, New;
//   - login.go: the dashboard login (tokens are issued by httpx);
//   - keys.go: API keys; merchant.go: the merchant settings;
//   - invoices.go: invoice create, list, read, status and cancel, with the
//     latest_payment and payments expansions; totals.go: the invoice totals;
//   - query.go: the query parameters of the invoice list and totals;
//   - decode.go: the strict decoder of an invoice create body (fuzzed by
//     FuzzDecodeInvoiceCreate);
//   - events.go: the events list, lookups and resends; webhooks.go: webhook
//     endpoints and their deliveries;
//   - devnet.go: simulated payments, fed to payment.Service.DevnetPay.
//
// Handlers decode, call a domain service and encode; the rules live in package
// kassa and package payment.
package merchantapi
