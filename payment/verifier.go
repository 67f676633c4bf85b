package payment

import (
	"context"

	"github.com/kassapay/kassa"
)

// ChainVerifier looks a transaction up on chain now (verify).
type ChainVerifier interface {
	// Watched reports whether network of env has a watcher (an RPC endpoint).
	Watched(env kassa.Environment, network string) bool
	// VerifyTransaction fetches the transaction over RPC and ingests every
	// transfer in it to one of the invoice's deposit addresses, as the watcher
	// would. It fails with KindInvalid code network_not_watched when the network
	// has no watcher.
	VerifyTransaction(ctx context.Context, inv *kassa.Invoice, network, txHash string) error
}
