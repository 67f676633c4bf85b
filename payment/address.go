package payment

import (
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// Address is an invoice's deposit address on one network, and the quote the
// payor was given for the token it locked.
type Address struct {
	InvoiceID   string
	Environment kassa.Environment
	Network     string
	Index       uint32 // position in the network's derivation path
	Address     string
	TokenID     int64
	AmountUSD   kassa.Millis // what the quote covers: the amount still owed when quoted
	AmountUnits *big.Int     // the quoted token amount, base units
	USDPerToken *big.Rat     // the locked rate
	ExpiresAt   time.Time
}

// AddressDeriver derives deposit addresses; hdwallet.Wallet is one.
type AddressDeriver interface {
	Address(network kassa.Network, index uint32) (string, error)
}

// QuoteCurrent reports whether a, quoted for token, still holds at now for an
// invoice that owes remaining: same token, not expired, same amount.
func (a *Address) QuoteCurrent(token int64, remaining kassa.Millis, now time.Time) bool {
	return a != nil && a.TokenID == token && now.Before(a.ExpiresAt) && a.AmountUSD == remaining
}
