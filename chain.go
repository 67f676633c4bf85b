package kassa

import (
	"context"
	"math/big"
	"time"
)

// Chain watching: the types the watcher (package chain) and the store share. The
// rules are those of decisions.md, "Chains": a transfer in block B has
// head - B + 1 confirmations; blocks are checked by hash against their parents;
// money that is not on the canonical chain never counts as paid.

// NativeLogIndex is the log index of a native (coin) transfer, which has no log.
const NativeLogIndex = -1

// BlockRef names one block: its height, its hash and its parent's hash (hashes
// 0x-prefixed lower-case hex), and when it was made as a node answered it.
type BlockRef struct {
	Number uint64
	Hash   string
	Parent string
	// Time is the block's timestamp; zero when unknown (the store keeps none,
	// and a log names its block by number and hash only).
	Time time.Time
}

// ChainCursor is how far a network's watcher got: the last block it processed
// completely, on the chain whose first block is Genesis (so a dev chain that was
// reset is noticed).
type ChainCursor struct {
	Network string
	Genesis string
	Block   BlockRef
}

// Transfer is money moved to an address, as found in a block: an ERC-20 Transfer
// log (TokenAddress set) or a native transfer (TokenAddress "", LogIndex -1).
type Transfer struct {
	Network      string
	TxHash       string
	LogIndex     int64
	Block        BlockRef
	TokenAddress string // the ERC-20 contract, "" for the native coin
	From, To     string
	Amount       *big.Int // base units
}

// WatchedAddress is a deposit address the watcher looks for, and the invoice and
// quote it belongs to.
type WatchedAddress struct {
	Address     string // EIP-55
	InvoiceID   string
	MerchantID  int64
	Environment Environment
	TokenID     int64    // the token quoted for this address
	USDPerToken *big.Rat // the quote's locked rate
	// QuoteExpiresAt is when that rate stops holding (QuoteHolds).
	QuoteExpiresAt time.Time
	// InvoiceExpiresAt is the invoice's expiry: once final, it is watched until
	// WatchAfterExpiry after it.
	InvoiceExpiresAt time.Time
}

// ChainStore keeps what a chain watcher needs across restarts: the cursor and the
// recent blocks of each network, the deposit addresses to watch, and the payments
// whose block may still leave the chain. Transfers themselves go through the one
// ingestion path, PaymentService.IngestPayment.
type ChainStore interface {
	// ChainCursor returns network's cursor; nil before its first block.
	ChainCursor(ctx context.Context, network string) (*ChainCursor, error)
	// ChainBlocks returns the blocks remembered for network from height from on,
	// ascending.
	ChainBlocks(ctx context.Context, network string, from uint64) ([]BlockRef, error)
	// AdvanceChain records processed blocks (ascending, each the parent of the
	// next, the first a child of the cursor) and moves the cursor to the last, in
	// one transaction; it forgets blocks more than keep below the new cursor.
	AdvanceChain(ctx context.Context, network, genesis string, blocks []BlockRef, keep int) error
	// RewindChain handles a reorganisation: it forgets network's blocks above
	// ancestor, moves the cursor to it, and detaches the payments recorded in the
	// forgotten blocks, in one transaction: a pending one keeps counting as
	// pending money with 0 confirmations until its transaction is seen in a
	// canonical block again; a confirmed one becomes manual_retry, its invoice is
	// recomputed and invoice_payment.updated is written. A refund the merchant
	// paid from their own wallet by a transfer in a forgotten block waits pending
	// again (OwnWalletWatch). It returns the payments it changed.
	RewindChain(ctx context.Context, network string, ancestor BlockRef) ([]*InvoicePayment, error)
	// ResetChain forgets network's cursor and blocks (the chain was replaced, e.g.
	// a dev chain started anew), detaching its payments as RewindChain does.
	ResetChain(ctx context.Context, network string) ([]*InvoicePayment, error)
	// WatchedAddresses lists network's deposit addresses whose invoices are still
	// watched at now: not final, or final less than WatchAfterExpiry ago (late
	// money is kept), in environment env.
	WatchedAddresses(ctx context.Context, env Environment, network string, now time.Time) ([]WatchedAddress, error)
	// QuoteMark returns a mark of network's deposit addresses in env: the quote
	// number of the last address locked or requoted, 0 when none was.
	QuoteMark(ctx context.Context, env Environment, network string) (int64, error)
	// WatchedAddressesSince lists, as WatchedAddresses, network's deposit addresses
	// in env locked or requoted after the mark after, whose invoices are watched at
	// now, and returns the mark for the next call. A read after a lock's commit
	// sees it: the watcher keeps its addresses up to date with it.
	WatchedAddressesSince(ctx context.Context, env Environment, network string, after int64, now time.Time) ([]WatchedAddress, int64, error)
	// StillWatched returns which of the invoices ids in env are still watched at
	// now, by WatchedAddresses' rule.
	StillWatched(ctx context.Context, env Environment, ids []string, now time.Time) ([]string, error)
	// PendingChainPayments lists network's payments whose confirmations are
	// still counted: pending ones, including those whose block left the chain,
	// and unresolved ones set aside for a person in a canonical block with fewer
	// than confirmations.
	PendingChainPayments(ctx context.Context, network string, confirmations int) ([]*InvoicePayment, error)
	// AbandonLostPayments sets to manual_retry (reorged) the pending payments of
	// network whose block left the chain and whose invoice is no longer watched at
	// now, or is paid and the transaction had confirmations blocks to come back
	// and did not; it recomputes their invoices with events and returns them.
	AbandonLostPayments(ctx context.Context, network string, now time.Time, confirmations int) ([]*InvoicePayment, error)
}

// Leaser hands out named, expiring leases, so one instance of several does a job
// (watching a network) at a time.
type Leaser interface {
	// TryLease takes or renews the lease name for holder until now+ttl and
	// reports whether holder has it; another holder's unexpired lease wins.
	TryLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives up holder's lease name, if it has it.
	ReleaseLease(ctx context.Context, name, holder string) error
}

// ChainVerifier looks a transaction up on chain now (verify).
type ChainVerifier interface {
	// Watched reports whether network of env has a watcher (an RPC endpoint).
	Watched(env Environment, network string) bool
	// VerifyTransaction fetches the transaction over RPC and ingests every
	// transfer in it to one of the invoice's deposit addresses, as the watcher
	// would. It fails with KindInvalid code network_not_watched when the network
	// has no watcher.
	VerifyTransaction(ctx context.Context, inv *Invoice, network, txHash string) error
}

// Confirmations is the confirmation count of a transfer in block at head:
// head - block + 1, and 0 when the head is below the block.
func Confirmations(head, block uint64) int {
	if block == 0 || head < block {
		return 0
	}
	return int(min(head-block+1, 1<<30))
}

// TokenMillis is the USD value, in millis rounded down, of units base units of a
// token with decimals decimals at usdPerToken: the credit a transfer earns. Rounded
// down, the inverse of TokenUnits never credits more than was paid.
func TokenMillis(units *big.Int, decimals int, usdPerToken *big.Rat) Millis {
	if units == nil || usdPerToken == nil || units.Sign() <= 0 || usdPerToken.Sign() <= 0 {
		return 0
	}
	// units / 10^d × p/q × 1000 = units × p × 1000 / (q × 10^d)
	num := new(big.Int).Mul(units, usdPerToken.Num())
	num.Mul(num, big.NewInt(1000))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	den.Mul(den, usdPerToken.Denom())
	q := num.Quo(num, den)
	if !q.IsInt64() {
		return Millis(1<<63 - 1)
	}
	return Millis(q.Int64())
}
