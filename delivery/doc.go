// Package delivery holds what the webhook sender (package webhook) and the store
// share of a webhook delivery: a claimed delivery with what to post (Job), what
// one attempt got back (Result) and what follows it (Next: the retry schedule,
// the endpoint's failing time, its disabling), and where webhooks may go
// (Targets, the SSRF rule the store checks an endpoint's URL against and the
// sender dials by). It imports only the standard
// library and the domain, so the store and package webhook (whose tests run on
// the store) both can.
package delivery
