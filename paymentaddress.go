package kassa

import (
	"math/big"
	"time"
)

// PaymentAddress is an invoice's deposit address on one network, and the quote the
// payor was given for the token it locked.
type PaymentAddress struct {
	InvoiceID   string
	Environment Environment
	Network     string
	Index       uint32 // position in the network's derivation path
	Address     string
	TokenID     int64
	AmountUSD   Millis   // what the quote covers: the amount still owed when quoted
	AmountUnits *big.Int // the quoted token amount, base units
	USDPerToken *big.Rat // the locked rate
	ExpiresAt   time.Time
}

// PaymentAddressDeriver derives deposit addresses; hdwallet.Wallet is one.
type PaymentAddressDeriver interface {
	Address(network Network, index uint32) (string, error)
}

// QuoteCurrent reports whether a, quoted for token, still holds at now for an
// invoice that owes remaining: same token, not expired, same amount.
func (a *PaymentAddress) QuoteCurrent(token int64, remaining Millis, now time.Time) bool {
	return a != nil && a.TokenID == token && now.Before(a.ExpiresAt) && a.AmountUSD == remaining
}

// CheckTokenLock says whether an invoice in status s, locked to token locked (nil:
// none), may be paid in token: not once it is over, and while it is underpaid only
// in the locked token.
func CheckTokenLock(s InvoiceStatus, locked *int64, token int64) error {
	switch {
	case s == StatusPaid:
		return Errorf(KindConflict, "invoice_paid", "This invoice is already paid.")
	case s == StatusExpired || s == StatusCanceled:
		return Errorf(KindGone, "invoice_"+string(s), "This invoice is %s.", s)
	case s == StatusUnderpaid && locked != nil && *locked != token:
		return Invalidf("token_id", "token_locked", "This invoice is partly paid; pay the rest in the same token (id %d).", *locked)
	}
	return nil
}
