// Package httpx is the plumbing every HTTP surface of Kassa shares, so a surface
// package holds only its handlers:
//
//   - core.go: Core, the service's http.Handler, and Handle/HandleHTTP to
//     register routes (package api's route table is the only caller);
//   - middleware.go: the outer layer: request ids, access log, panic recovery,
//     body limits, JSON 404 and 405, health;
//   - errors.go: the one table from kassa.ErrorKind to status code and error
//     type, the error envelopes and WriteJSON;
//   - jsonbody.go, jsonmembers.go, decode.go, params.go, list.go: strict JSON
//     body decoding (unknown, duplicate and mistyped fields are 400 with the
//     field's path; DecodeFields over the body's members read by jsontext) and
//     query parameters;
//   - auth.go, dashboardtoken.go, wstoken.go: API keys, dashboard JWTs,
//     WebSocket tokens and the principal of a request;
//   - ratelimit.go, ratelimit_shared.go, payorlimits.go: per-credential budgets
//     with RateLimit headers, in memory (Limiter) or shared by every instance
//     through the store (SharedLimiter), and the payor's buckets;
//   - idempotency.go, idempotencystore.go, fingerprint.go: the Idempotency-Key
//     layer, the store it keeps keys in, and a body's fingerprint;
//   - sse.go, stream.go: Server-Sent Events views (SSEView) and the write
//     timeouts of long-lived streams;
//   - metrics.go, netgate.go: where requests and streams are counted (Metrics,
//     by route template), and the network gate of /metrics (OnlyFrom).
package httpx
