package settlement

import (
	"context"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// SettlementJob is one receipt's money to pass on to the merchant.
type SettlementJob struct {
	ReceiptID   string
	InvoiceID   string
	MerchantID  int64
	Environment kassa.Environment
	Network     string
	TokenID     int64
	AmountUnits *big.Int
	// To is where the money goes: the invoice's receiver override when enabled, else
	// the merchant's settlement address for the environment; "" when neither is set.
	To string
	// TargetNetwork is the network the merchant's settlement for the environment
	// names (the receiver override settles there too); "" when none is set.
	TargetNetwork string
	// DepositAddress is the receipt's deposit address and DepositIndex its index.
	DepositAddress string
	DepositIndex   uint32
}

// SettlementExecutor moves a receipt's money to its destination and returns the
// transaction hash. Devnet's executor settles by itself; mainnet's sends on chain.
type SettlementExecutor interface {
	Settle(ctx context.Context, job SettlementJob) (txHash string, err error)
}

// SettlementService hands out receipts due for settlement and records outcomes.
type SettlementService interface {
	// ClaimSettlements moves up to limit confirmed receipts from pending to
	// processing for lease and returns them; several workers never claim the same
	// receipt. A receipt still processing, and not in a sweep, once its lease has
	// run out (its worker died) is claimed again.
	ClaimSettlements(ctx context.Context, limit int, lease time.Duration) ([]SettlementJob, error)
	// FinishSettlement records a processing receipt's outcome (settled, failed or
	// manual) with its transaction hash or error, and its invoice_payment.updated event.
	FinishSettlement(ctx context.Context, receiptID string, status kassa.SettlementStatus, txHash, reason string) error
}

// SweepQueue takes a receipt into the sweep of its deposit address, which
// chain.Sender sends (the store implements it).
type SweepQueue interface {
	// QueueSweep adds a claimed receipt to the queued sweep of its deposit
	// address, token and destination (a new one if none is queued); the receipt
	// stays processing until the sweep is done or failed.
	QueueSweep(ctx context.Context, job SettlementJob) (*outbox.Payout, error)
}

// SettlementRoute decides how a job settles: manual when the token has no
// settlement route or there is nowhere to send the money, else through the executor.
func SettlementRoute(t kassa.Token, known bool, job SettlementJob) kassa.SettlementStatus {
	if !known || !t.SettlementRoute || job.To == "" {
		return kassa.SettlementManual
	}
	return kassa.SettlementProcessing
}
