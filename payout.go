package kassa

import (
	"math/big"
	"time"
)

// Money moving out on chain (decisions.md, "Chains"): a Payout is money Kassa owes
// someone on one network (a sweep of a deposit address's receipts to the merchant,
// or a commerce refund from the gas wallet), and an OutboxTx is one transaction
// Kassa signs for it. A transaction is signed and stored with its nonce in one
// store transaction before it is ever broadcast, so a crash can only leave a stored
// transaction to broadcast again, never a transfer nobody knows of.

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
	Environment Environment
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

// TxStatus is where an outbox transaction stands.
type TxStatus string

// Outbox transaction statuses.
const (
	TxPending   TxStatus = "pending"   // signed and stored; broadcast, perhaps mined in a block not yet final
	TxConfirmed TxStatus = "confirmed" // mined with the network's confirmations
	TxReverted  TxStatus = "reverted"  // mined, but it failed: the nonce is spent, nothing moved
	TxDisplaced TxStatus = "displaced" // another transaction took its nonce: nothing moved
)

// Outbox transaction purposes.
const (
	TxTopup    = "topup"    // gas from the gas wallet to a deposit address
	TxTransfer = "transfer" // a payout's transfer
	TxFiller   = "filler"   // an empty transaction closing a nonce gap
)

// OutboxTx is one transaction Kassa signs, under one nonce of its sender. Every
// signed version (a fee bump signs another) is kept; whichever is mined wins.
type OutboxTx struct {
	ID          string
	Environment Environment
	Network     string
	From        string
	FromIndex   int64 // From's deposit address index; GasWalletIndex for the gas wallet
	Nonce       uint64
	Purpose     string // TxTopup, TxTransfer or TxFiller
	PayoutID    string // "" for a filler
	// PayoutAmount is, for a transfer, the payout amount it pays: the store
	// refuses to record it if the payout has since grown or moved on.
	PayoutAmount *big.Int
	To           string // the receiver, or the ERC-20 contract
	Value        *big.Int
	Data         []byte
	GasLimit     uint64
	Status       TxStatus
	Attempts     []TxAttempt // oldest first
	MinedHash    string      // the version mined, while in a canonical block
	BlockNumber  uint64      // its block; 0 while not mined
	BlockHash    string
	GasUsed      uint64
	CreatedAt    time.Time
}

// Latest is the transaction's newest signed version.
func (t *OutboxTx) Latest() TxAttempt { return t.Attempts[len(t.Attempts)-1] }

// TxAttempt is one signed version of an outbox transaction.
type TxAttempt struct {
	Hash      string
	Raw       []byte   // the signed transaction, as broadcast
	Tip       *big.Int // max priority fee per gas, wei
	FeeCap    *big.Int // max fee per gas, wei
	SignedAt  uint64   // the chain's head when it was signed
	CreatedAt time.Time
}

// BumpFee raises a fee by the replacement rule of decisions.md: at least 12.5 %,
// rounded up, and at least 1 wei more.
func BumpFee(fee *big.Int) *big.Int {
	up := new(big.Int).Mul(fee, big.NewInt(1125))
	up.Add(up, big.NewInt(999))
	up.Quo(up, big.NewInt(1000))
	if up.Cmp(fee) <= 0 {
		up.Add(fee, big.NewInt(1))
	}
	return up
}

// TxOutcome is what the sender learned of an outbox transaction on chain.
type TxOutcome struct {
	Status    TxStatus
	MinedHash string // with a block: the version mined
	Block     BlockRef
	GasUsed   uint64
	Reason    string // why reverted or displaced
}
