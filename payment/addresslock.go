package payment

import (
	"context"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// PaymentAddressRequest asks for an invoice's deposit address in a token.
type PaymentAddressRequest struct {
	MerchantID int64
	InvoiceID  string
	Token      kassa.Token
	// Derive returns the deposit address at index on the token's network.
	Derive func(index uint32) (string, error)
	// Quote prices what is still owed in the token, at a rate locked until expiry.
	Quote func(remaining kassa.Millis) (units *big.Int, rate *big.Rat, expires time.Time, err error)
}

// PaymentAddressService hands out deposit addresses and locks the payor's token.
type PaymentAddressService interface {
	// LockPaymentAddress locks the token for the invoice and returns its deposit
	// address on the token's network: the same address when asked again, with a
	// fresh quote once the last one expired or what is owed changed (a partial
	// payment).
	LockPaymentAddress(ctx context.Context, req PaymentAddressRequest) (*Address, *kassa.Invoice, error)
	// PaymentAddress returns the invoice's address on network as last quoted, or
	// nil when it has none; it only reads.
	PaymentAddress(ctx context.Context, invoiceID, network string) (*Address, error)
}
