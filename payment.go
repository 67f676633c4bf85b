package kassa

import (
	"context"
	"math/big"
)

// Event types of payments.
const (
	EventPaymentCreated          = "invoice_payment.created"
	EventPaymentUpdated          = "invoice_payment.updated"
	EventInvoicePaidAfterExpired = "invoice.paid_after_expiration"
)

// PaymentInput is a transfer to an invoice's deposit address, as the chain watcher
// or the devnet simulation reports it. Reporting the same (network, tx hash, log
// index) again updates that receipt (more confirmations); it never adds money twice.
type PaymentInput struct {
	MerchantID  int64
	InvoiceID   string
	Network     string
	TxHash      string
	LogIndex    int64
	TokenID     int64
	FromAddress string
	AmountUnits *big.Int
	AmountUSD   Millis // at the quote's locked rate while it held (kassa.QuoteHolds), else kassa.LateRate
	// Unpriced says no rate could value the transfer (its quote had run out and
	// no market rate was known): it is kept for a person (manual_retry).
	Unpriced      bool
	Confirmations int
	Confirmed     bool // the network's confirmation depth is reached
	// BlockNumber and BlockHash name the canonical block the transfer is in; zero
	// for a simulated payment. A transfer seen again in another block (a
	// reorganisation re-included it) is matched to its receipt by transaction
	// hash, token, recipient invoice and amount, so it never counts twice.
	BlockNumber uint64
	BlockHash   string
}

// PaymentService records payments and recomputes their invoices.
type PaymentService interface {
	// IngestPayment records a transfer and recomputes its invoice, writing the
	// receipt, the invoice change and their events in one transaction.
	IngestPayment(ctx context.Context, in PaymentInput) (*Payment, *Invoice, error)
	// InvoicePayments lists an invoice's receipts, newest first, at most limit.
	InvoicePayments(ctx context.Context, merchantID int64, invoiceID string, limit int) ([]*Payment, error)
	// InvoiceWithPayments reads one of the merchant's invoices (with its
	// effective status) and its receipts, newest first, at most limit, such that
	// the invoice is never older than the receipts beside it: a confirmed receipt
	// is counted in the invoice read with it.
	InvoiceWithPayments(ctx context.Context, merchantID int64, invoiceID string, limit int) (*Invoice, []*Payment, error)
	// ResolvePayment locks one of the merchant's invoices, reads the payment (nil
	// when the invoice has none of that id) and how many of its refunds are under
	// way, and asks decide, the payment service's rule; when decide returns nil it
	// records the accept or dismiss req with its invoice_payment.updated event, and
	// accepting recomputes the invoice and writes its events, all in one
	// transaction. It answers the payment as resolved; decide's error is returned
	// as it is, and nothing is written.
	ResolvePayment(ctx context.Context, merchantID int64, invoiceID, paymentID string, req ResolveRequest,
		decide func(inv *Invoice, pay *Payment, refunding int) error) (*Payment, error)
	// PaymentsOf returns the receipts of several of the merchant's invoices, oldest
	// first, by invoice id (the reports' payments export); unknown ids have none.
	PaymentsOf(ctx context.Context, merchantID int64, invoiceIDs []string) (map[string][]*Payment, error)
}

// receiptJSON is the invoice_payment object as merchants see it.
type receiptJSON struct {
	Object        string           `json:"object"`
	ID            string           `json:"id"`
	InvoiceID     string           `json:"invoice_id"`
	Status        PaymentStatus    `json:"status"`
	Network       string           `json:"network"`
	TxHash        string           `json:"tx_hash"`
	LogIndex      int64            `json:"log_index"`
	TokenID       int64            `json:"token_id"`
	FromAddress   string           `json:"from_address"`
	AmountToken   string           `json:"amount_token_units"`
	AmountUSD     Millis           `json:"amount_usd"`
	AmountDecimal string           `json:"amount_usd_decimal"`
	Confirmations int              `json:"confirmations"`
	SeenAt        string           `json:"seen_at"`
	ConfirmedAt   *string          `json:"confirmed_at"`
	Settlement    SettlementStatus `json:"settlement_status"`
	SettlementTx  *string          `json:"settlement_tx_hash"`
	Attention     *AttentionReason `json:"attention_reason"`
	Resolution    *Resolution      `json:"resolution"`
	ResolvedAt    *string          `json:"resolved_at"`
	Note          *string          `json:"resolution_note"`
}

func (r *Payment) view() receiptJSON {
	v := receiptJSON{Object: "invoice_payment", ID: r.ID, InvoiceID: r.InvoiceID, Status: r.Status,
		Network: r.Network, TxHash: r.TxHash, LogIndex: r.LogIndex, TokenID: r.TokenID,
		FromAddress: r.FromAddress, AmountToken: r.AmountUnits.String(), AmountUSD: r.AmountUSD,
		AmountDecimal: r.AmountUSD.Decimal(), Confirmations: r.Confirmations,
		SeenAt: FormatTime(r.SeenAt), ConfirmedAt: FormatOptTime(r.ConfirmedAt),
		Settlement: r.Settlement, SettlementTx: r.SettlementTxHash, ResolvedAt: FormatOptTime(r.ResolvedAt)}
	if r.AttentionReason != "" {
		v.Attention = &r.AttentionReason
	}
	if r.Resolution != "" {
		v.Resolution, v.Note = &r.Resolution, &r.ResolutionNote
	}
	return v
}

// MarshalJSON renders the merchant's view of a receipt, settlement included. Payor
// endpoints never render receipts this way: they answer a summary without
// settlement fields (payment-status).
func (r Payment) MarshalJSON() ([]byte, error) { return MarshalJSON(r.view()) }
