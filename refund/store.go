package refund

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// Store keeps refunds. Each write is one store transaction with the
// refund's events.
type Store interface {
	// CreateRefund plans req on the invoice's payments and refunds with the
	// invoice locked (Refundable), so refunds created at once never exceed what is
	// refundable, and stores the refund with refund.created.
	CreateRefund(ctx context.Context, p kassa.Principal, invoiceID string, req Request) (*kassa.Refund, error)
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
	// ClaimRefund gives a refund awaiting its address the payor's address, when
	// tokenHash matches its claim (compared in constant time; 404 otherwise, and
	// past its expiry); a refund claimed already is 409 refund_claimed.
	ClaimRefund(ctx context.Context, id string, tokenHash []byte, address string) (*kassa.Refund, error)
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
	// PayRefundFromOwnWallet withdraws a pending refund from the payout
	// executor, in one transaction with refund.updated: its payout, unsigned,
	// fails; one whose transfer is signed is 409 refund_being_sent.
	PayRefundFromOwnWallet(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error)
	// LetKassaPayRefund hands such a refund back to the executor while no
	// transfer paying it was seen (409 refund_being_sent otherwise).
	LetKassaPayRefund(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error)
}
