package chain

import (
	"context"
	"fmt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// reorganize handles a block that is not the child of the last one processed: it
// finds the common ancestor of the remembered blocks and the node's chain, and
// rewinds the cursor to it; the store detaches the payments recorded in the
// blocks that left the chain (pending ones keep counting as pending money with no
// confirmations until seen again; confirmed ones go to a person). The next step
// reads the new canonical blocks from the ancestor on.
func (w *Watcher) reorganize(ctx context.Context, n Node, cur *watch.Cursor) error {
	ancestor, found, err := w.commonAncestor(ctx, n, cur.Block.Number)
	if err != nil {
		return err
	}
	if !found {
		w.log().Error("reorganisation deeper than the blocks remembered: rewinding below them",
			"block", ancestor.Number, "remembered", w.keep())
	}
	changed, err := w.Store.RewindChain(ctx, w.Network.Name, ancestor)
	w.set = nil // the invoices of detached payments were recomputed: load the addresses afresh
	if err != nil {
		return err
	}
	depth := cur.Block.Number - ancestor.Number
	if w.Metrics != nil {
		w.Metrics.Reorganisation(w.Network.Name, depth)
	}
	w.log().Warn("chain reorganisation", "depth", depth, "ancestor", ancestor.Number, "payments_detached", len(changed))
	for _, p := range changed {
		if p.Status == kassa.PaymentManualRetry {
			w.log().Error("a confirmed payment was lost to a reorganisation deeper than the confirmations; kept for a person (manual_retry)",
				"invoice", p.InvoiceID, "tx", p.TxHash, "depth", depth)
		}
	}
	return nil
}

// commonAncestor compares the remembered blocks at or below top with the node's
// blocks at the same heights (one batch) and returns the highest that agrees. When
// none agrees (a reorganisation deeper than the blocks remembered), it returns the
// node's block just below the oldest remembered one, and found false.
func (w *Watcher) commonAncestor(ctx context.Context, n Node, top uint64) (kassa.BlockRef, bool, error) {
	var from uint64
	if top > w.keep() {
		from = top - w.keep()
	}
	known, err := w.Store.ChainBlocks(ctx, w.Network.Name, from)
	if err != nil {
		return kassa.BlockRef{}, false, err
	}
	if len(known) == 0 {
		return kassa.BlockRef{}, false, fmt.Errorf("chain: %s: no remembered blocks below %d", w.Network.Name, top)
	}
	theirs, err := n.Headers(ctx, known[0].Number, min(top, known[len(known)-1].Number))
	if err != nil {
		return kassa.BlockRef{}, false, err
	}
	byNumber := make(map[uint64]string, len(theirs))
	for _, h := range theirs {
		byNumber[h.Number] = h.Hash
	}
	for i := len(known) - 1; i >= 0; i-- {
		if byNumber[known[i].Number] == known[i].Hash {
			return known[i], true, nil
		}
	}
	below := known[0].Number - min(known[0].Number, 1)
	hs, err := n.Headers(ctx, below, below)
	if err != nil || len(hs) != 1 {
		return kassa.BlockRef{}, false, fmt.Errorf("%w: block %d missing", ErrLagging, below)
	}
	return hs[0], false, nil
}
