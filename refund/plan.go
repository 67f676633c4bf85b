package refund

import (
	"math/big"

	"github.com/kassapay/kassa"
)

// Request is a merchant's refund of an invoice, as the service hands it to
// the store once checked.
type Request struct {
	ID          string // the new refund's id
	PaymentID   string
	AmountUSD   *kassa.Millis // nil with AmountUnits nil: all that is refundable
	AmountUnits *big.Int      // exact base units instead of AmountUSD
	Rate        kassa.RefundRate
	Address     string // "" : a claim link
	Reason      string
	// Token is the token the refund is paid in, as the service planned it from
	// an earlier read; CurrentRate its USD price today (RefundRateCurrent only).
	Token       kassa.Token
	CurrentRate *big.Rat
	ClaimHash   []byte // the SHA-256 of the claim token, without Address
}

// Plan is what a refund pays: AmountUnits of TokenID on Network, worth
// AmountUSD.
type Plan struct {
	Network     string
	TokenID     int64
	AmountUSD   kassa.Millis
	AmountUnits *big.Int
}

// counted reports whether a payment counts toward its invoice.
func counted(r *kassa.Payment) bool {
	return r.Status == kassa.PaymentConfirmed || r.Status == kassa.PaymentUnderpaid
}

// Refundable applies the refundable rule to an invoice's payments and refunds
// (any order): what its confirmed payments paid, in their token on their network
// (those of the oldest), less the refunds that count (not failed or canceled);
// or, with req.PaymentID, what that one payment paid (a confirmed one, or one set
// aside for a person), less the refunds of it; a confirmed payment is also
// bounded by what the invoice's confirmed payments leave. Amounts in USD become
// tokens at the rate paid (units per USD of the payments refunded) or today's,
// rounded down; exact token units count at the rate paid. More than is
// refundable is 400 refund_exceeds_paid; nothing refundable 409 nothing_to_refund.
func Refundable(payments []*kassa.Payment, refunds []*kassa.Refund, req Request) (Plan, error) {
	var src *kassa.Payment // the payment named, else the oldest confirmed one
	for _, r := range payments {
		switch {
		case req.PaymentID != "" && r.ID == req.PaymentID:
			src = r
		case req.PaymentID == "" && counted(r) && (src == nil || r.SeenAt.Before(src.SeenAt)):
			src = r
		}
	}
	if req.PaymentID != "" && src == nil {
		return Plan{}, kassa.NotFound("payment")
	}
	if src == nil {
		return Plan{}, kassa.Errorf(kassa.KindConflict, "nothing_to_refund", "This invoice has no confirmed payment to refund.")
	}
	if (!counted(src) && src.Status != kassa.PaymentManualRetry) || src.Orphaned() {
		return Plan{}, kassa.Errorf(kassa.KindConflict, "nothing_to_refund",
			"Only a confirmed payment or one set aside for a person can be refunded; this one is %s.", src.Status)
	}
	plan := Plan{Network: src.Network, TokenID: src.TokenID}
	inPool := func(r *kassa.Payment) bool {
		return counted(r) && r.Network == plan.Network && r.TokenID == plan.TokenID
	}
	byID := make(map[string]*kassa.Payment, len(payments))
	pool := newRefundable()
	for _, r := range payments {
		byID[r.ID] = r
		if inPool(r) {
			pool.add(r.AmountUnits, r.AmountUSD)
		}
	}
	own := newRefundable()
	own.add(src.AmountUnits, src.AmountUSD)
	for _, f := range refunds {
		if !f.Status.Counts() || f.Network != plan.Network || f.TokenID != plan.TokenID {
			continue
		}
		if f.PaymentID == src.ID {
			own.use(f)
		}
		if p := byID[f.PaymentID]; f.PaymentID == "" || (p != nil && inPool(p)) {
			pool.use(f)
		}
	}
	bounds := []*refundable{pool}
	if req.PaymentID != "" {
		bounds = []*refundable{own}
		if counted(src) {
			bounds = append(bounds, pool)
		}
	}
	rate := bounds[0] // the payments refunded: their units per USD
	var err error
	plan.AmountUnits, plan.AmountUSD, err = refundAmount(req, rate, bounds)
	return plan, err
}

// refundAmount is the units and USD of a refund from payments paid at rate,
// within every bound.
func refundAmount(req Request, rate *refundable, bounds []*refundable) (*big.Int, kassa.Millis, error) {
	leftUnits, leftUSD := bounds[0].left()
	for _, b := range bounds[1:] {
		u, d := b.left()
		if u.Cmp(leftUnits) < 0 {
			leftUnits = u
		}
		leftUSD = min(leftUSD, d)
	}
	param := "amount_usd"
	var units *big.Int
	var usd kassa.Millis
	switch {
	case req.AmountUnits != nil:
		param = "amount_token_units"
		units, usd = new(big.Int).Set(req.AmountUnits), rate.usdOf(req.AmountUnits)
	case req.AmountUSD != nil && req.Rate == kassa.RefundRateCurrent:
		units, usd = unitsAt(*req.AmountUSD, req.Token.Decimals, req.CurrentRate), *req.AmountUSD
	case req.AmountUSD != nil:
		if rate.usd.Sign() <= 0 {
			return nil, 0, kassa.Invalidf("amount_usd", "payment_unpriced",
				"No rate valued this payment; give the refund in amount_token_units.")
		}
		units, usd = rate.unitsOf(*req.AmountUSD), *req.AmountUSD
	default:
		if leftUnits.Sign() <= 0 {
			return nil, 0, kassa.Errorf(kassa.KindConflict, "nothing_to_refund", "Everything this invoice was paid is already refunded.")
		}
		units, usd = leftUnits, leftUSD
		if req.Rate == kassa.RefundRateCurrent && usd > 0 {
			if u := unitsAt(usd, req.Token.Decimals, req.CurrentRate); u.Cmp(units) < 0 {
				units = u
			}
		}
		return units, usd, nil
	}
	if units.Cmp(leftUnits) > 0 || (req.AmountUnits == nil && usd > leftUSD) {
		return nil, 0, kassa.Invalidf(param, "refund_exceeds_paid",
			"This refund is more than is still refundable: %s base units, %s USD.", leftUnits, leftUSD.Decimal())
	}
	if units.Sign() <= 0 {
		return nil, 0, kassa.Invalidf(param, "invalid_amount", "%s is too small to refund a single base unit.", param)
	}
	return units, usd, nil
}

// unitsAt is usd at usdPerToken in base units of a token with decimals, rounded
// down: a refund never sends more than the amount asked is worth.
func unitsAt(usd kassa.Millis, decimals int, usdPerToken *big.Rat) *big.Int {
	if usdPerToken == nil || usdPerToken.Sign() <= 0 {
		return new(big.Int)
	}
	num := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	num.Mul(num, big.NewInt(int64(usd)))
	num.Mul(num, usdPerToken.Denom())
	return num.Quo(num, new(big.Int).Mul(big.NewInt(1000), usdPerToken.Num()))
}

// refundable sums what payments paid and what refunds of them took.
type refundable struct {
	units, usedUnits *big.Int
	usd, usedUSD     *big.Int
}

func newRefundable() *refundable {
	return &refundable{units: new(big.Int), usedUnits: new(big.Int), usd: new(big.Int), usedUSD: new(big.Int)}
}

func (b *refundable) add(units *big.Int, usd kassa.Millis) {
	if units != nil {
		b.units.Add(b.units, units)
	}
	b.usd.Add(b.usd, big.NewInt(int64(usd)))
}

func (b *refundable) use(f *kassa.Refund) {
	b.usedUnits.Add(b.usedUnits, f.AmountUnits)
	b.usedUSD.Add(b.usedUSD, big.NewInt(int64(f.AmountUSD)))
}

// left is what is still refundable, never below zero.
func (b *refundable) left() (*big.Int, kassa.Millis) {
	u := new(big.Int).Sub(b.units, b.usedUnits)
	if u.Sign() < 0 {
		u.SetInt64(0)
	}
	d := new(big.Int).Sub(b.usd, b.usedUSD)
	if d.Sign() < 0 {
		d.SetInt64(0)
	}
	return u, kassa.Millis(d.Int64())
}

// unitsOf is usd at the rate paid, rounded down and never more than was paid.
func (b *refundable) unitsOf(usd kassa.Millis) *big.Int {
	out := new(big.Int).Mul(b.units, big.NewInt(int64(usd)))
	return out.Quo(out, b.usd)
}

// usdOf is units at the rate paid, rounded down; 0 for unpriced payments.
func (b *refundable) usdOf(units *big.Int) kassa.Millis {
	if b.units.Sign() <= 0 {
		return 0
	}
	out := new(big.Int).Mul(units, b.usd)
	return kassa.Millis(out.Quo(out, b.units).Int64())
}
