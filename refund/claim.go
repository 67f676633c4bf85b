package refund

import "github.com/kassapay/kassa"

// Claim is a refund as its claim link shows it to the payor: the refund,
// shown only through its payor view (no payment_id, claim_url, reason or
// failure_reason), and the name of the shop that refunds.
type Claim struct {
	Refund *kassa.Refund
	Shop   string // the merchant's company name
}
