package chain

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// ChainStore keeps what a chain watcher needs across restarts: the cursor and the
// recent blocks of each network, the deposit addresses to watch, and the payments
// whose block may still leave the chain. Transfers themselves go through the one
// ingestion path, PaymentService.IngestPayment.
type ChainStore interface {
	// ChainCursor returns network's cursor; nil before its first block.
	ChainCursor(ctx context.Context, network string) (*watch.Cursor, error)
	// ChainBlocks returns the blocks remembered for network from height from on,
	// ascending.
	ChainBlocks(ctx context.Context, network string, from uint64) ([]kassa.BlockRef, error)
	// AdvanceChain records processed blocks (ascending, each the parent of the
	// next, the first a child of the cursor) and moves the cursor to the last, in
	// one transaction; it forgets blocks more than keep below the new cursor.
	AdvanceChain(ctx context.Context, network, genesis string, blocks []kassa.BlockRef, keep int) error
	// RewindChain handles a reorganisation: it forgets network's blocks above
	// ancestor, moves the cursor to it, and detaches the payments recorded in the
	// forgotten blocks, in one transaction: a pending one keeps counting as
	// pending money with 0 confirmations until its transaction is seen in a
	// canonical block again; a confirmed one becomes manual_retry, its invoice is
	// recomputed and invoice_payment.updated is written. A refund the merchant
	// paid from their own wallet by a transfer in a forgotten block waits pending
	// again (OwnWalletWatch). It returns the payments it changed.
	RewindChain(ctx context.Context, network string, ancestor kassa.BlockRef) ([]*kassa.Payment, error)
	// ResetChain forgets network's cursor and blocks (the chain was replaced, e.g.
	// a dev chain started anew), detaching its payments as RewindChain does.
	ResetChain(ctx context.Context, network string) ([]*kassa.Payment, error)
	// WatchedAddresses lists network's deposit addresses whose invoices are still
	// watched at now: not final, or final less than WatchAfterExpiry ago (late
	// money is kept), in environment env.
	WatchedAddresses(ctx context.Context, env kassa.Environment, network string, now time.Time) ([]watch.Address, error)
	// QuoteMark returns a mark of network's deposit addresses in env: the quote
	// number of the last address locked or requoted, 0 when none was.
	QuoteMark(ctx context.Context, env kassa.Environment, network string) (int64, error)
	// WatchedAddressesSince lists, as WatchedAddresses, network's deposit addresses
	// in env locked or requoted after the mark after, whose invoices are watched at
	// now, and returns the mark for the next call. A read after a lock's commit
	// sees it: the watcher keeps its addresses up to date with it.
	WatchedAddressesSince(ctx context.Context, env kassa.Environment, network string, after int64, now time.Time) ([]watch.Address, int64, error)
	// StillWatched returns which of the invoices ids in env are still watched at
	// now, by WatchedAddresses' rule.
	StillWatched(ctx context.Context, env kassa.Environment, ids []string, now time.Time) ([]string, error)
	// PendingChainPayments lists network's payments whose confirmations are
	// still counted: pending ones, including those whose block left the chain,
	// and unresolved ones set aside for a person in a canonical block with fewer
	// than confirmations.
	PendingChainPayments(ctx context.Context, network string, confirmations int) ([]*kassa.Payment, error)
	// AbandonLostPayments sets to manual_retry (reorged) the pending payments of
	// network whose block left the chain and whose invoice is no longer watched at
	// now, or is paid and the transaction had confirmations blocks to come back
	// and did not; it recomputes their invoices with events and returns them.
	AbandonLostPayments(ctx context.Context, network string, now time.Time, confirmations int) ([]*kassa.Payment, error)
}

// OwnWalletWatch is what a chain watcher needs to see the merchant's own
// payments of refunds on its network.
type OwnWalletWatch interface {
	// OwnWalletRefunds lists env's refunds on network the merchant pays, pending
	// (waiting for the transfer) or sent (counting its confirmations).
	OwnWalletRefunds(ctx context.Context, env kassa.Environment, network string) ([]*kassa.Refund, error)
	// RecordOwnWalletTransfer marks sent the refund a transfer of token tokenID
	// pays (MatchOwnWalletTransfer on the locked rows), with refund.updated; a
	// transfer already taken, or one of Kassa's own, pays nothing. It returns
	// the refund it paid, or nil.
	RecordOwnWalletTransfer(ctx context.Context, env kassa.Environment, tokenID int64, t kassa.Transfer) (*kassa.Refund, error)
	// ConfirmOwnWalletRefunds confirms the sent refunds of network whose transfer
	// has confirmations at head, as a payout's confirmation does (the invoice's
	// amount_refunded, the payment resolved). It returns how many.
	ConfirmOwnWalletRefunds(ctx context.Context, env kassa.Environment, network string, head uint64, confirmations int) (int, error)
}
