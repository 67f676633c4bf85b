package kassa

import (
	"math/big"
	"time"
)

// QuoteGrace is how long after its quote's expires_at a transfer's block may be
// made and still be valued at the quote's locked rate: the time a transaction
// signed just before the quote ran out may wait to be mined, plus the clock skew
// between the node and Kassa.
const QuoteGrace = 2 * time.Minute

// QuoteHolds reports whether a transfer in the quoted token, in a block made at
// blockTime, is valued at the rate of a quote that expires at expiresAt: the
// block is inside the quote's window, from its start (expiresAt - QuoteLock) to
// its end, widened by QuoteGrace on each side. A block from before the quote was
// given was sent under an earlier quote, or none: a quote given later (a payor
// may ask again at any time, and a page asks again when one runs out) must not
// lend its rate to money that was sent when the market stood elsewhere.
func QuoteHolds(expiresAt, blockTime time.Time) bool {
	start := expiresAt.Add(-QuoteLock - QuoteGrace)
	return !blockTime.Before(start) && !blockTime.After(expiresAt.Add(QuoteGrace))
}

// LateRate is the rate a transfer in the quoted token is valued at once its quote
// has run out (QuoteHolds is false): the market rate at its block's time, never
// better for the payor than the locked rate. A locked quote is a promise for its
// window only; a payor who waits for the token to fall and then sends the quoted
// amount is credited what the money is worth, and a shortfall leaves the invoice
// underpaid. A stablecoin inside its peg is priced at 1 by the rate source, so
// it keeps its quote's rate. Nil when no market rate is known: the transfer
// cannot be valued and is kept for a person.
func LateRate(locked, market *big.Rat) *big.Rat {
	if market == nil || market.Sign() <= 0 {
		return nil
	}
	if locked != nil && locked.Sign() > 0 && locked.Cmp(market) < 0 {
		return new(big.Rat).Set(locked)
	}
	return new(big.Rat).Set(market)
}
