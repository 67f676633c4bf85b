package registry

import (
	"math/big"
	"time"

	"kassa"
)

// DefaultQuoteLock is how long a quote's rate holds: a payor who pays the quoted
// token amount before ExpiresAt has paid in full, whatever the market did.
const DefaultQuoteLock = 15 * time.Minute

// Quote is a USD amount converted into one token at a locked rate.
type Quote struct {
	TokenID       int64
	AmountUnits   *big.Int   // in the token's smallest unit, rounded up
	AmountDecimal string     // AmountUnits in whole tokens, e.g. "12.5"
	Rate          kassa.Rate // the rate used, a copy of the one given
	ExpiresAt     time.Time  // the rate holds until then
}

// NewQuote converts amount (usd_millis) into token t at rate r, locked for lock from
// now. The token amount is ceil(amount / 1000 / USDPerToken × 10^decimals), computed
// exactly, so rounding is always up and the merchant is never short. amount and lock
// must be positive; a missing or non-positive rate gives a KindConflict error with
// code rate_unavailable.
func NewQuote(amount kassa.Millis, t kassa.Token, r kassa.Rate, now time.Time, lock time.Duration) (Quote, error) {
	switch {
	case amount <= 0:
		return Quote{}, kassa.Invalidf("amount", "amount_out_of_range", "amount must be positive.")
	case t.Decimals < 0 || t.Decimals > MaxDecimals:
		return Quote{}, kassa.Invalidf("token_id", "token_invalid", "token %d has %d decimals.", t.ID, t.Decimals)
	case r.USDPerToken == nil || r.USDPerToken.Sign() <= 0:
		return Quote{}, kassa.Errorf(kassa.KindConflict, "rate_unavailable",
			"No rate is available for %s on %s.", t.Symbol, t.Network)
	case lock <= 0:
		return Quote{}, kassa.Invalidf("lock", "lock_invalid", "a quote must be locked for a positive duration.")
	}
	units := kassa.TokenUnits(amount, t.Decimals, r.USDPerToken)
	return Quote{
		TokenID:       t.ID,
		AmountUnits:   units,
		AmountDecimal: kassa.FormatUnits(units, t.Decimals),
		Rate:          kassa.Rate{USDPerToken: new(big.Rat).Set(r.USDPerToken), UpdatedAt: r.UpdatedAt},
		ExpiresAt:     now.Add(lock),
	}, nil
}
