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
