package settlement

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/kassapay/kassa"
)

// RefundSimulator completes the pending refunds of networks no watcher follows
// (store.DB.SimulateRefunds).
type RefundSimulator interface {
	SimulateRefunds(ctx context.Context, env kassa.Environment, watched func(network string) bool, hash func(refundID string) string) (int, error)
}

// simulateRefunds completes devnet's pending refunds on networks no chain
// watcher follows, as settlement does there: no chain to send on, so sent and
// confirmed at once with a stand-in hash derived from the refund. Watched
// networks' refunds are paid on chain by their sender.
func (w *Worker) simulateRefunds(ctx context.Context) error {
	if w.Refunds == nil || w.Executors[kassa.Devnet] == nil {
		return nil
	}
	watched := func(network string) bool { return w.OnChain != nil && w.OnChain(kassa.Devnet, network) }
	_, err := w.Refunds.SimulateRefunds(ctx, kassa.Devnet, watched, DevnetRefundHash)
	return err
}

// DevnetRefundHash is the stand-in transaction hash of a simulated refund.
func DevnetRefundHash(refundID string) string {
	h := sha256.Sum256([]byte("kassa devnet refund " + refundID))
	return "0x" + hex.EncodeToString(h[:])
}
