// Package httpx is the plumbing every HTTP surface of Kassa shares, so a surface
// package holds only its handlers:
//
//   - core.go: Core, the service's http.Handler, and Handle/HandleHTTP to
//     register routes (package api's route table is the only caller);
//   - middleware.go: the outer layer: request ids, access log, panic recovery,
//     body limits, JSON 404 and 405, health;
//   - errors.go: the one table from kassa.ErrorKind to status code and error
//     type, the error envelopes and WriteJSON;
//   - jsonbody.go, params.go: strict JSON body decoding (unknown, duplicate and
//     mistyped fields are 400 with the field's path) and query parameters;
//   - auth.go, dashboardtoken.go: API keys, dashboard JWTs and the principal of a request;
//   - ratelimit.go: per-credential token buckets with RateLimit headers;
//   - idempotency.go: the Idempotency-Key layer;
//   - metrics.go, netgate.go: where requests and streams are counted (Metrics,
//     by route template), and the network gate of /metrics (OnlyFrom).
package httpx
