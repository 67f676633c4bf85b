// Package payment is the service between a payor and the store: it gives an
// invoice a deposit address with a quote (the token amount at a rate locked for
// kassa.QuoteLock, refused while a required question is unanswered), reads the
// quote back while it holds, and, on devnet, makes simulated payments that take
// the same ingestion path a transfer found on chain takes. Its Tracker tells how
// an invoice's transfers stand (Status), and Verify answers the verify endpoint:
// which invoice a credential opens, a named transfer's checks and its look-up
// on chain. Resolve decides a merchant's accept or dismiss of a set-aside payment
// (DecideResolve) on the rows the store locks. SessionSigner signs payment sessions
// (and refund claim links) with the server secret. The payor API, the payment page, the
// devnet endpoint and the commerce simulation all pay through it. It imports only
// the domain.
package payment
