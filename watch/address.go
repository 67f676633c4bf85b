package watch

import (
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// Address is a deposit address the watcher looks for, and the invoice and
// quote it belongs to.
type Address struct {
	Address     string // EIP-55
	InvoiceID   string
	MerchantID  int64
	Environment kassa.Environment
	TokenID     int64    // the token quoted for this address
	USDPerToken *big.Rat // the quote's locked rate
	// QuoteExpiresAt is when that rate stops holding (kassa.QuoteHolds).
	QuoteExpiresAt time.Time
	// InvoiceExpiresAt is the invoice's expiry: once final, it is watched until
	// kassa.WatchAfterExpiry after it.
	InvoiceExpiresAt time.Time
}
