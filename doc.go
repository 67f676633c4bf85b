// Package kassa is Kassa's domain: the types, rules and service interfaces that
// every other package builds on. It imports only the standard library (and
// golang.org/x/crypto/sha3 for Ethereum's Keccak-256; imports_test.go keeps it
// so), so its rules are shared by both store engines and tested alone.
//
// What lives where:
//
//   - error.go: the one error type and its kinds; the HTTP layer maps each kind
//     to one status code.
//   - money.go, moneynumber.go, tokenamount.go: exact USD millis and token base
//     units; no floats; moneydisplay.go: the one way USD is shown to a person.
//   - merchant.go, apikey.go, paymentsession.go, signin.go, dashboardsession.go:
//     tenants and credentials, and the sign-in rules (the per-account hold, which
//     merchant changes need the password again, the dashboard session's times);
//     the sessions, the hold's error and the throttle are package signin's, a
//     payment session token's signature package payment's (SessionSigner).
//   - invoice*.go, lifecycle.go, invoicepayment.go, payment.go, payor.go, form.go,
//     tokenlock.go: invoices, the payments that pay them and the pure lifecycle
//     rules that compute an invoice's status from its payments; quoterate.go: what
//     a transfer is worth once its quote has run out; attention.go: why a payment
//     is set aside for a person (AttentionReason, SetAsideReason) and how the
//     merchant resolved it (Resolution).
//   - network.go, evm.go: networks, tokens and EVM addresses; chain.go: blocks and
//     transfers, confirmations and a transfer's USD value.
//   - event.go, eventencode.go, webhook*.go: the events every change writes and
//     their webhooks (endpoints, signatures, timing, the delivery log). An
//     event's data comes from its writer as JSON: the invoice's wire shapes are
//     rendered by internal/invoicejson, and an Invoice refuses to be encoded by
//     its Go fields (invoicejson.go).
//   - idempotency.go: idempotency keys and the response an idempotent change saves
//     with it; the saved responses are sealed by package sealed (Responses).
//   - refund.go, refundclaim.go: refunds, their statuses and JSON views;
//     refundownwallet.go: a refund the merchant pays from their own wallet (which
//     transfer pays it). The refundable rule is package refund's (Refundable).
//   - environment.go, id.go: the rest.
//
// The commerce area (orders, checkout, retailers) is a domain of its own in
// package commerce, beside its service.
//
// A subsystem's records live in a package named for what it provides, not here:
// those the store shares with packages it cannot import (their tests run on the
// store) in leaf packages that import only the standard library and this one
// (outbox: payouts and their transactions; watch: the watcher's cursor and
// addresses; delivery: webhook jobs, results, retries and targets; idempotency:
// the saved record and the repeated-key rule, which needs only the standard
// library), the others beside their consumer
// (signin, secondfactor, payment, refund, internal/invoicejson).
//
// An interface only one package consumes lives in that package, beside its
// consumer (chain.ChainStore, chain.PayoutStore, chain.KeyRing, webhook.Queue,
// settlement.SettlementService, refund.Store, endpoints.Store, apikeys.Store,
// report.OverviewStats, signin.DashboardSessionStore, signin.Throttle,
// secondfactor.Store,
// payment.PaymentAddressService, payment.ChainVerifier, worker.Leaser,
// httpx.IdempotencyStore); so does plumbing: live event streams and replays in
// package stream, WebSocket tokens (a JWT, as the dashboard's) in api/httpx.
package kassa
