package chain

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// PayoutStore keeps payouts and the outbox. Each method is one store transaction
// that writes the change with its events.
type PayoutStore interface {
	// QueueRefunds queues a refund payout from the gas wallet gasAddress for every
	// order of env whose refund is pending and whose invoice was paid on network;
	// it returns how many it queued.
	QueueRefunds(ctx context.Context, env kassa.Environment, network, gasAddress string, tokens []kassa.Token) (int, error)
	// OpenPayouts lists network's payouts that are queued, funding or sending.
	OpenPayouts(ctx context.Context, env kassa.Environment, network string) ([]*outbox.Payout, error)
	// WaitPayout records why a queued payout waits (the gas wallet is short).
	WaitPayout(ctx context.Context, id, reason string) error
	// AddTx allocates tx's nonce, the next of its sender and at least minNonce,
	// signs it through sign and stores it with its first version; a topup or
	// transfer moves its payout to funding or sending. Nothing is broadcast.
	AddTx(ctx context.Context, tx *outbox.Tx, minNonce uint64, sign func(nonce uint64) (outbox.Attempt, error)) (*outbox.Tx, error)
	// AddAttempt stores another signed version of a pending transaction.
	AddAttempt(ctx context.Context, txID string, a outbox.Attempt) error
	// OutboxTxs lists network's pending transactions and its confirmed ones mined
	// above height since: those a reorganisation may still drop.
	OutboxTxs(ctx context.Context, env kassa.Environment, network string, since uint64) ([]*outbox.Tx, error)
	// RecordTx records what the chain says of a transaction and applies it to its
	// payout: a confirmed transfer settles the receipts or completes the refund; a
	// confirmed transaction that left the chain is pending again and so are they;
	// a reverted or displaced transfer queues its payout again, or fails it once
	// MaxPayoutAttempts ran out; a reverted or displaced top-up queues it again.
	RecordTx(ctx context.Context, txID string, o outbox.Outcome) error
	// FailAttempt counts a transfer that cannot be made (its estimate reverts: the
	// deposit address no longer holds what it should): the payout stays queued
	// with the reason, or fails once MaxPayoutAttempts ran out, failing its
	// receipts with the reason.
	FailAttempt(ctx context.Context, payoutID, reason string) error
	// NextNonce is the nonce the store would allocate next for from (0 if none).
	NextNonce(ctx context.Context, network, from string) (uint64, error)
}

// KeyRing holds the private keys of Kassa's own addresses on one environment's
// networks: deposit addresses, to sweep them, and the gas wallet. Keys are 32-byte
// secp256k1 scalars; callers must never log or return them.
type KeyRing interface {
	DepositKey(n kassa.Network, index uint32) ([]byte, error)
	GasKey(n kassa.Network) ([]byte, error)
	GasAddress(n kassa.Network) (string, error)
}
