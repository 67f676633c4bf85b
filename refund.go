package kassa

import (
	"encoding/json"
	"math/big"
	"time"
)

// Refunds (decisions.md, "Refunds, and money that needs a person"): money paid to
// an invoice, sent back on chain in the token and network it came in, to an
// address the merchant gives or one the payor enters through a claim link.

// Event types of refunds.
const (
	EventRefundCreated = "refund.created"
	EventRefundUpdated = "refund.updated"
)

// RefundStatus is where a refund stands.
type RefundStatus string

// Refund statuses: awaiting_address → pending → sent → confirmed | failed;
// canceled before sent.
const (
	RefundAwaitingAddress RefundStatus = "awaiting_address" // waits for the payor's address (claim link)
	RefundPending         RefundStatus = "pending"          // has its address; not yet broadcast
	RefundSent            RefundStatus = "sent"             // its transfer is broadcast
	RefundConfirmed       RefundStatus = "confirmed"        // its transfer has the network's confirmations
	RefundFailed          RefundStatus = "failed"           // its transfer failed (failure_reason)
	RefundCanceled        RefundStatus = "canceled"         // canceled by the merchant before it was sent
)

// Counts reports whether a refund in status s counts against what is refundable:
// from its creation until it failed or was canceled.
func (s RefundStatus) Counts() bool { return s != RefundFailed && s != RefundCanceled }

// Cancelable reports whether a refund in status s may still be canceled: before
// its transfer is broadcast.
func (s RefundStatus) Cancelable() bool { return s == RefundAwaitingAddress || s == RefundPending }

// RefundRate says at which rate a refund given in USD is turned into tokens.
type RefundRate string

// Refund rates.
const (
	RefundRatePaid    RefundRate = "paid"    // the rate the payment(s) refunded were paid at
	RefundRateCurrent RefundRate = "current" // today's rate
)

// MaxRefundReason is the longest reason a merchant may give for a refund.
const MaxRefundReason = 255

// RefundClaimTTL is how long a refund's claim link is valid.
const RefundClaimTTL = 30 * 24 * time.Hour

// Refund is money paid back to a payor: AmountUnits of one token on one network.
type Refund struct {
	ID          string
	InvoiceID   string
	PaymentID   string // the payment refunded; "" for the invoice's confirmed payments
	MerchantID  int64
	Environment Environment
	Status      RefundStatus
	AmountUSD   Millis
	Rate        RefundRate
	Network     string
	TokenID     int64
	TokenSymbol string
	Decimals    int      // the token's, to render amount_token
	AmountUnits *big.Int // base units the payor receives
	Address     string   // the destination (EIP-55); "" while awaiting_address
	// ClaimURL is the claim link of a refund awaiting its address, rendered for
	// the merchant from the server secret; never stored, never in events.
	ClaimURL string
	// ClaimHash is the SHA-256 of the claim token; ClaimExpires when it lapses.
	ClaimHash     []byte
	ClaimExpires  time.Time
	TxHash        string
	Reason        string // the merchant's
	FailureReason string // why it failed, or why a pending refund waits
	CreatedAt     time.Time
	SentAt        *time.Time
	ConfirmedAt   *time.Time
	// OwnWallet is set while the merchant pays it from their own wallet
	// (refundownwallet.go); nil while Kassa pays it.
	OwnWallet *OwnWalletPay
}

// refundJSON is the refund object as the merchant sees it.
type refundJSON struct {
	Object        string       `json:"object"`
	ID            string       `json:"id"`
	InvoiceID     string       `json:"invoice_id"`
	PaymentID     *string      `json:"payment_id"`
	Status        RefundStatus `json:"status"`
	AmountUSD     Millis       `json:"amount_usd"`
	AmountDecimal string       `json:"amount_usd_decimal"`
	Rate          RefundRate   `json:"rate"`
	Network       string       `json:"network"`
	TokenID       int64        `json:"token_id"`
	TokenSymbol   string       `json:"token_symbol"`
	AmountUnits   string       `json:"amount_token_units"`
	AmountToken   string       `json:"amount_token"`
	Address       *string      `json:"address"`
	ClaimURL      *string      `json:"claim_url"`
	TxHash        *string      `json:"tx_hash"`
	Reason        *string      `json:"reason"`
	FailureReason *string      `json:"failure_reason"`
	CreatedAt     string       `json:"created_at"`
	SentAt        *string      `json:"sent_at"`
	ConfirmedAt   *string      `json:"confirmed_at"`
}

// payorRefundJSON is the refund object as the payor sees it: no merchant-only
// fields (payment_id, claim_url, reason, failure_reason).
type payorRefundJSON struct {
	Object        string       `json:"object"`
	ID            string       `json:"id"`
	InvoiceID     string       `json:"invoice_id"`
	Status        RefundStatus `json:"status"`
	AmountUSD     Millis       `json:"amount_usd"`
	AmountDecimal string       `json:"amount_usd_decimal"`
	Rate          RefundRate   `json:"rate"`
	Network       string       `json:"network"`
	TokenID       int64        `json:"token_id"`
	TokenSymbol   string       `json:"token_symbol"`
	AmountUnits   string       `json:"amount_token_units"`
	AmountToken   string       `json:"amount_token"`
	Address       *string      `json:"address"`
	TxHash        *string      `json:"tx_hash"`
	CreatedAt     string       `json:"created_at"`
	SentAt        *string      `json:"sent_at"`
	ConfirmedAt   *string      `json:"confirmed_at"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (r *Refund) view() refundJSON {
	return refundJSON{Object: "refund", ID: r.ID, InvoiceID: r.InvoiceID, PaymentID: optString(r.PaymentID),
		Status: r.Status, AmountUSD: r.AmountUSD, AmountDecimal: r.AmountUSD.Decimal(), Rate: r.Rate,
		Network: r.Network, TokenID: r.TokenID, TokenSymbol: r.TokenSymbol, AmountUnits: r.AmountUnits.String(),
		AmountToken: FormatUnits(r.AmountUnits, r.Decimals), Address: optString(r.Address),
		ClaimURL: optString(r.ClaimURL), TxHash: optString(r.TxHash), Reason: optString(r.Reason),
		FailureReason: optString(r.FailureReason), CreatedAt: FormatTime(r.CreatedAt),
		SentAt: FormatOptTime(r.SentAt), ConfirmedAt: FormatOptTime(r.ConfirmedAt)}
}

// MarshalJSON renders the merchant's view of a refund.
func (r *Refund) MarshalJSON() ([]byte, error) { return MarshalJSON(r.view()) }

// PayorView is the payor's view of the refund, as the claim API and page
// render it: no merchant-only fields.
func (r *Refund) PayorView() json.Marshaler { return payorRefund{r} }

// payorRefund renders a refund's PayorView.
type payorRefund struct{ *Refund }

// MarshalJSON renders the payor's view.
func (p payorRefund) MarshalJSON() ([]byte, error) {
	v := p.view()
	return MarshalJSON(payorRefundJSON{Object: v.Object, ID: v.ID, InvoiceID: v.InvoiceID, Status: v.Status,
		AmountUSD: v.AmountUSD, AmountDecimal: v.AmountDecimal, Rate: v.Rate, Network: v.Network, TokenID: v.TokenID,
		TokenSymbol: v.TokenSymbol, AmountUnits: v.AmountUnits, AmountToken: v.AmountToken, Address: v.Address,
		TxHash: v.TxHash, CreatedAt: v.CreatedAt, SentAt: v.SentAt, ConfirmedAt: v.ConfirmedAt})
}

// RefundRequest is a merchant's refund of an invoice, as the service hands it to
// the store once checked.
type RefundRequest struct {
	ID          string // the new refund's id
	PaymentID   string
	AmountUSD   *Millis  // nil with AmountUnits nil: all that is refundable
	AmountUnits *big.Int // exact base units instead of AmountUSD
	Rate        RefundRate
	Address     string // "" : a claim link
	Reason      string
	// Token is the token the refund is paid in, as the service planned it from
	// an earlier read; CurrentRate its USD price today (RefundRateCurrent only).
	Token       Token
	CurrentRate *big.Rat
	ClaimHash   []byte // the SHA-256 of the claim token, without Address
}

// RefundPlan is what a refund pays: AmountUnits of TokenID on Network, worth
// AmountUSD.
type RefundPlan struct {
	Network     string
	TokenID     int64
	AmountUSD   Millis
	AmountUnits *big.Int
}

// counted reports whether a payment counts toward its invoice.
func counted(r *Payment) bool {
	return r.Status == PaymentConfirmed || r.Status == PaymentUnderpaid
}

// PlanRefund applies the refundable rule to an invoice's payments and refunds
// (any order): what its confirmed payments paid, in their token on their network
// (those of the oldest), less the refunds that count (not failed or canceled);
// or, with req.PaymentID, what that one payment paid (a confirmed one, or one set
// aside for a person), less the refunds of it; a confirmed payment is also
// bounded by what the invoice's confirmed payments leave. Amounts in USD become
// tokens at the rate paid (units per USD of the payments refunded) or today's,
// rounded down; exact token units count at the rate paid. More than is
// refundable is 400 refund_exceeds_paid; nothing refundable 409 nothing_to_refund.
func PlanRefund(payments []*Payment, refunds []*Refund, req RefundRequest) (RefundPlan, error) {
	var src *Payment // the payment named, else the oldest confirmed one
	for _, r := range payments {
		switch {
		case req.PaymentID != "" && r.ID == req.PaymentID:
			src = r
		case req.PaymentID == "" && counted(r) && (src == nil || r.SeenAt.Before(src.SeenAt)):
			src = r
		}
	}
	if req.PaymentID != "" && src == nil {
		return RefundPlan{}, NotFound("payment")
	}
	if src == nil {
		return RefundPlan{}, Errorf(KindConflict, "nothing_to_refund", "This invoice has no confirmed payment to refund.")
	}
	if (!counted(src) && src.Status != PaymentManualRetry) || src.Orphaned() {
		return RefundPlan{}, Errorf(KindConflict, "nothing_to_refund",
			"Only a confirmed payment or one set aside for a person can be refunded; this one is %s.", src.Status)
	}
	plan := RefundPlan{Network: src.Network, TokenID: src.TokenID}
	inPool := func(r *Payment) bool {
		return counted(r) && r.Network == plan.Network && r.TokenID == plan.TokenID
	}
	byID := make(map[string]*Payment, len(payments))
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
func refundAmount(req RefundRequest, rate *refundable, bounds []*refundable) (*big.Int, Millis, error) {
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
	var usd Millis
	switch {
	case req.AmountUnits != nil:
		param = "amount_token_units"
		units, usd = new(big.Int).Set(req.AmountUnits), rate.usdOf(req.AmountUnits)
	case req.AmountUSD != nil && req.Rate == RefundRateCurrent:
		units, usd = unitsAt(*req.AmountUSD, req.Token.Decimals, req.CurrentRate), *req.AmountUSD
	case req.AmountUSD != nil:
		if rate.usd.Sign() <= 0 {
			return nil, 0, Invalidf("amount_usd", "payment_unpriced",
				"No rate valued this payment; give the refund in amount_token_units.")
		}
		units, usd = rate.unitsOf(*req.AmountUSD), *req.AmountUSD
	default:
		if leftUnits.Sign() <= 0 {
			return nil, 0, Errorf(KindConflict, "nothing_to_refund", "Everything this invoice was paid is already refunded.")
		}
		units, usd = leftUnits, leftUSD
		if req.Rate == RefundRateCurrent && usd > 0 {
			if u := unitsAt(usd, req.Token.Decimals, req.CurrentRate); u.Cmp(units) < 0 {
				units = u
			}
		}
		return units, usd, nil
	}
	if units.Cmp(leftUnits) > 0 || (req.AmountUnits == nil && usd > leftUSD) {
		return nil, 0, Invalidf(param, "refund_exceeds_paid",
			"This refund is more than is still refundable: %s base units, %s USD.", leftUnits, leftUSD.Decimal())
	}
	if units.Sign() <= 0 {
		return nil, 0, Invalidf(param, "invalid_amount", "%s is too small to refund a single base unit.", param)
	}
	return units, usd, nil
}

// unitsAt is usd at usdPerToken in base units of a token with decimals, rounded
// down: a refund never sends more than the amount asked is worth.
func unitsAt(usd Millis, decimals int, usdPerToken *big.Rat) *big.Int {
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

func (b *refundable) add(units *big.Int, usd Millis) {
	if units != nil {
		b.units.Add(b.units, units)
	}
	b.usd.Add(b.usd, big.NewInt(int64(usd)))
}

func (b *refundable) use(f *Refund) {
	b.usedUnits.Add(b.usedUnits, f.AmountUnits)
	b.usedUSD.Add(b.usedUSD, big.NewInt(int64(f.AmountUSD)))
}

// left is what is still refundable, never below zero.
func (b *refundable) left() (*big.Int, Millis) {
	u := new(big.Int).Sub(b.units, b.usedUnits)
	if u.Sign() < 0 {
		u.SetInt64(0)
	}
	d := new(big.Int).Sub(b.usd, b.usedUSD)
	if d.Sign() < 0 {
		d.SetInt64(0)
	}
	return u, Millis(d.Int64())
}

// unitsOf is usd at the rate paid, rounded down and never more than was paid.
func (b *refundable) unitsOf(usd Millis) *big.Int {
	out := new(big.Int).Mul(b.units, big.NewInt(int64(usd)))
	return out.Quo(out, b.usd)
}

// usdOf is units at the rate paid, rounded down; 0 for unpriced payments.
func (b *refundable) usdOf(units *big.Int) Millis {
	if b.units.Sign() <= 0 {
		return 0
	}
	out := new(big.Int).Mul(units, b.usd)
	return Millis(out.Quo(out, b.units).Int64())
}
