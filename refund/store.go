package refund

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// Store keeps refunds. Each write is one store transaction with the
// refund's events.
type Store interface {
	// CreateRefund locks the merchant's invoice and asks decide (DecideCreate)
	// with its payments and refunds; when decide returns a plan it stores the
	// refund req planned so with refund.created, in one transaction. decide's
	// error is returned as it is, and nothing is written.
	CreateRefund(ctx context.Context, merchantID int64, invoiceID string, req Request, decide CreateDecision) (*kassa.Refund, error)
	// Refund reads one of the merchant's refunds in p's environment.
	Refund(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error)
	// InvoiceRefunds lists an invoice's refunds, newest first.
	InvoiceRefunds(ctx context.Context, p kassa.Principal, invoiceID string) ([]*kassa.Refund, error)
	// RefundsOf returns the refunds of several of the merchant's invoices, oldest
	// first, by invoice id (the reports' refund rows); unknown ids have none.
	RefundsOf(ctx context.Context, merchantID int64, invoiceIDs []string) (map[string][]*kassa.Refund, error)
	// CancelRefund locks the merchant's refund id and its payout and asks decide
	// (with the payout's status, "" for none); when decide returns nil it fails the
	// payout not yet signed and cancels the refund with refund.updated, in one
	// transaction. decide's error is returned as it is, and nothing is written.
	CancelRefund(ctx context.Context, merchantID int64, id string,
		decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error)
	// ClaimRefund locks refund id and asks decide (DecideClaim) with the store's
	// time; when decide returns nil it gives the refund the payor's address and
	// makes it pending with refund.updated. decide's error is returned as it is.
	ClaimRefund(ctx context.Context, id, address string, decide func(r *kassa.Refund, now time.Time) error) (*kassa.Refund, error)
	// RefundByClaim reads a refund and its shop's name for its claim link, when
	// tokenHash matches its claim (compared in constant time; 404 otherwise,
	// whether or not the refund exists), in any status and past the claim's
	// expiry: the link keeps working to follow the refund after the claim.
	RefundByClaim(ctx context.Context, id string, tokenHash []byte) (*Claim, error)
	// OwnWalletStore: the merchant paying a refund from their own wallet.
	OwnWalletStore
}

// OwnWalletStore keeps the merchant's own payment of refunds.
type OwnWalletStore interface {
	// PayRefundFromOwnWallet locks the merchant's refund id and its payout and
	// asks decide (DecideOwnWallet) with the payout's status ("" for none); when
	// decide returns nil it withdraws the refund from the payout executor, in one
	// transaction with refund.updated: its payout, unsigned, fails. A refund the
	// merchant's already is answered as it is; decide's error is returned as it is.
	PayRefundFromOwnWallet(ctx context.Context, merchantID int64, id string,
		decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error)
	// LetKassaPayRefund locks the merchant's refund id and asks decide
	// (DecideLetKassaPay); when decide returns nil it hands a refund the merchant
	// took over back to the executor. One not the merchant's is answered as it is.
	LetKassaPayRefund(ctx context.Context, merchantID int64, id string, decide func(r *kassa.Refund) error) (*kassa.Refund, error)
}
