package outbox

import (
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

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

// Tx is one transaction Kassa signs, under one nonce of its sender. Every
// signed version (a fee bump signs another) is kept; whichever is mined wins.
type Tx struct {
	ID          string
	Environment kassa.Environment
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
	Attempts     []Attempt // oldest first
	MinedHash    string    // the version mined, while in a canonical block
	BlockNumber  uint64    // its block; 0 while not mined
	BlockHash    string
	GasUsed      uint64
	CreatedAt    time.Time
}

// Latest is the transaction's newest signed version.
func (t *Tx) Latest() Attempt { return t.Attempts[len(t.Attempts)-1] }

// Attempt is one signed version of an outbox transaction.
type Attempt struct {
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

// Outcome is what the sender learned of an outbox transaction on chain.
type Outcome struct {
	Status    TxStatus
	MinedHash string // with a block: the version mined
	Block     kassa.BlockRef
	GasUsed   uint64
	Reason    string // why reverted or displaced
}
