package outbox

import (
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// Payout kinds.
const (
	PayoutSweep  = "sweep"  // a deposit address's receipts to the merchant
	PayoutRefund = "refund" // a refund: a commerce order's or a kassa.Refund, from the gas wallet or a deposit address
)

// PayoutStatus is where a payout stands.
type PayoutStatus string

// Payout statuses.
const (
	PayoutQueued  PayoutStatus = "queued"  // nothing signed yet, or to be signed again
	PayoutFunding PayoutStatus = "funding" // the gas wallet's top-up is on its way to From
	PayoutSending PayoutStatus = "sending" // the transfer is signed, stored and broadcast
	PayoutDone    PayoutStatus = "done"    // the transfer has the network's confirmations
	PayoutFailed  PayoutStatus = "failed"  // the transfers tried failed MaxPayoutAttempts times
)

// MaxPayoutAttempts is how many transfers a payout may try before it fails: a
// transfer that reverts, or whose nonce another transaction took, counts.
const MaxPayoutAttempts = 3

// GasWalletIndex is Payout.FromIndex for the gas wallet.
const GasWalletIndex = -1

// Payout is money Kassa owes on one network, paid by one transfer.
type Payout struct {
	ID          string
	Kind        string // PayoutSweep or PayoutRefund
	Environment kassa.Environment
	Network     string
	MerchantID  int64
	From        string // the sending address (EIP-55)
	FromIndex   int64  // the deposit address index of From; GasWalletIndex for the gas wallet
	TokenID     int64
	Amount      *big.Int // base units: exactly what the receiver gets
	To          string
	OrderID     string // a commerce refund's order
	RefundID    string // a refund's (kassa.Refund)
	Status      PayoutStatus
	TopupTxID   string // the gas wallet's top-up of From, while funding
	TxID        string // the transfer, once signed
	Attempts    int    // transfers that failed so far
	Reason      string // why it waits or failed
	CreatedAt   time.Time
}
