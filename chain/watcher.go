package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
	"github.com/kassapay/kassa/worker"
)

// Store is what a watcher keeps and reads in the store: its cursor and recent
// blocks, the addresses to watch, the one ingestion path, and the lease that makes
// it the only watcher of its network.
type Store interface {
	ChainStore
	kassa.PaymentService
	worker.Leaser
	OwnWalletWatch // refunds the merchant pays from their own wallet (ownwallet.go)
}

// Stepper runs one block step on one node; Pool is one.
type Stepper interface {
	Step(ctx context.Context, fn func(n Node) error) error
}

// Watcher defaults.
const (
	DefaultBatch     = 500  // blocks per step while catching up
	DefaultKeep      = 256  // recent blocks remembered for reorganisations
	DefaultStartBack = 1000 // how far below the head a network's first watch starts
)

// Watcher follows one network: it reads each new block once, checks it against
// its parent, reports transfers to deposit addresses to the ingestion path, counts
// confirmations, and undoes what a reorganisation removed (docs/chains.md).
type Watcher struct {
	Network kassa.Network
	Tokens  []kassa.Token // the registry's tokens of Network
	Nodes   Stepper
	Store   Store
	Rates   kassa.RateSource // prices a transfer in another token or after its quote ran out (kassa.RateAt); nil: none
	Log     *slog.Logger
	// Holder names this instance in the watch lease.
	Holder string
	// Own are Kassa's own sending addresses on the network (its gas wallet):
	// native value they send to a deposit address is a gas top-up, not a payment.
	Own []string
	// Batch is the most blocks one step reads (DefaultBatch when 0); Keep how many
	// recent blocks are remembered (DefaultKeep); StartBack how far below the head
	// the first watch of a network starts (DefaultStartBack; the dev chain from 0).
	Batch, Keep, StartBack uint64
	Now                    func() time.Time
	// Metrics counts the blocks scanned and the reorganisations; nil: none.
	Metrics Metrics

	genesis  string                   // the chain's first block, checked once per start
	set      *watchSet                // the deposit addresses kept between steps (watchset.go); nil: load afresh
	progress atomic.Pointer[Progress] // the last completed step (Watchers.Progress)
}

// errViewChanged reports that the node's answers within one step disagree (a block
// was replaced between two calls); the step is tried again.
var errViewChanged = errors.New("chain: the node's view changed during the step")

// LeaseName is the name of the lease that lets one instance watch network.
func LeaseName(network string) string { return "chain-watch:" + network }

func (w *Watcher) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Watcher) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log.With("network", w.Network.Name)
}

// Round is one pass: while it holds the network's lease, it reads new blocks one
// step at a time until it reaches the head (more reports a step limit hit), then
// gives up lost pending payments whose invoices are no longer watched.
func (w *Watcher) Round(ctx context.Context, leaseTTL time.Duration) (more bool, err error) {
	ok, err := w.Store.TryLease(ctx, LeaseName(w.Network.Name), w.Holder, leaseTTL)
	if err != nil || !ok {
		w.set = nil // another instance watches: load afresh once the lease is back
		return false, err
	}
	for i := 0; i < 20; i++ {
		if more, err = w.Step(ctx); err != nil || !more {
			break
		}
	}
	if err != nil {
		return false, err
	}
	lost, err := w.Store.AbandonLostPayments(ctx, w.Network.Name, w.now(), w.Network.Confirmations)
	if len(lost) > 0 {
		w.set = nil // their invoices were recomputed
	}
	for _, p := range lost {
		w.log().Error("a payment's block left the chain and its transaction never came back; kept for a person (manual_retry)",
			"invoice", p.InvoiceID, "tx", p.TxHash)
	}
	return more, err
}

// Step reads the next blocks on one node: at most Batch of them. It reports more
// when the head is further still.
func (w *Watcher) Step(ctx context.Context) (more bool, err error) {
	err = w.Nodes.Step(ctx, func(n Node) error {
		var err error
		more, err = w.stepOn(ctx, n)
		return err
	})
	return more, err
}

// stepOn is one step on node n. The head is read first and the watched addresses
// brought up to date after it: an address handed out before a transfer to it was
// mined is always in the set that scans the transfer's block.
func (w *Watcher) stepOn(ctx context.Context, n Node) (bool, error) {
	head, err := n.Head(ctx)
	if err != nil {
		return false, err
	}
	cur, err := w.cursor(ctx, n, head)
	if err != nil || cur == nil {
		return false, err
	}
	switch {
	case head.Number < cur.Block.Number:
		return false, fmt.Errorf("%w: head %d, processed %d", ErrLagging, head.Number, cur.Block.Number)
	case head.Number == cur.Block.Number && head.Hash == cur.Block.Hash:
		if err := w.confirm(ctx, head.Number); err != nil {
			return false, err
		}
		w.noteProgress(head.Number, head.Number)
		return false, nil
	case head.Number == cur.Block.Number:
		return true, w.reorganize(ctx, n, cur)
	}
	set, err := w.addresses(ctx)
	if err != nil {
		return false, err
	}
	from, to := cur.Block.Number+1, min(head.Number, cur.Block.Number+w.batch())
	own, err := w.ownWalletWaiting(ctx, set, to)
	if err != nil {
		return false, err
	}
	blocks, err := w.blocks(ctx, n, from, to, head, set.native || len(own.native) > 0)
	if err != nil {
		return false, err
	}
	if len(blocks) == 0 {
		return false, fmt.Errorf("%w: block %d missing below head %d", ErrLagging, from, head.Number)
	}
	if blocks[0].Parent != cur.Block.Hash {
		return true, w.reorganize(ctx, n, cur)
	}
	refs := make([]kassa.BlockRef, len(blocks))
	for i, b := range blocks {
		if i > 0 && b.Parent != blocks[i-1].Hash {
			return false, errViewChanged
		}
		refs[i] = b.BlockRef
	}
	to = refs[len(refs)-1].Number
	found, err := w.transfers(ctx, n, set, blocks)
	if err != nil {
		return false, err
	}
	for _, t := range found {
		if err := w.ingest(ctx, set, t, to); err != nil {
			return false, err
		}
	}
	if err := w.ownWalletTransfers(ctx, n, own, blocks); err != nil {
		return false, err
	}
	if err := w.Store.AdvanceChain(ctx, w.Network.Name, w.genesis, refs, int(w.keep())); err != nil {
		return false, err
	}
	if w.Metrics != nil {
		w.Metrics.BlocksScanned(w.Network.Name, len(refs))
	}
	if err := w.confirm(ctx, to); err != nil {
		return false, err
	}
	w.noteProgress(head.Number, to)
	return to < head.Number, nil
}

// cursor loads the network's cursor, starting one on first watch, and checks once
// per start that the chain is still the one the cursor was made on (a dev chain
// started afresh is not): otherwise everything remembered is reset.
func (w *Watcher) cursor(ctx context.Context, n Node, head kassa.BlockRef) (*watch.Cursor, error) {
	if w.genesis == "" {
		hs, err := n.Headers(ctx, 0, 0)
		if err != nil {
			return nil, err
		}
		if len(hs) != 1 {
			return nil, fmt.Errorf("%w: no genesis block", ErrLagging)
		}
		w.genesis = hs[0].Hash
	}
	cur, err := w.Store.ChainCursor(ctx, w.Network.Name)
	if err != nil {
		return nil, err
	}
	if cur != nil && cur.Genesis != w.genesis {
		w.log().Warn("the chain was replaced (another genesis block): forgetting its blocks", "was", cur.Genesis, "now", w.genesis)
		w.set = nil
		if _, err := w.Store.ResetChain(ctx, w.Network.Name); err != nil {
			return nil, err
		}
		cur = nil
	}
	if cur != nil {
		return cur, nil
	}
	start := uint64(0)
	if back := w.startBack(); head.Number > back {
		start = head.Number - back
	}
	hs, err := n.Headers(ctx, start, start)
	if err != nil || len(hs) != 1 {
		return nil, errors.Join(err, fmt.Errorf("%w: start block %d missing", ErrLagging, start))
	}
	if err := w.Store.AdvanceChain(ctx, w.Network.Name, w.genesis, hs, int(w.keep())); err != nil {
		return nil, err
	}
	w.log().Info("watching from block", "block", start)
	return &watch.Cursor{Network: w.Network.Name, Genesis: w.genesis, Block: hs[0]}, nil
}

// blocks reads from..to: headers, or whole blocks while a native token is quoted.
// A step that ends at the head reuses the head already read.
func (w *Watcher) blocks(ctx context.Context, n Node, from, to uint64, head kassa.BlockRef, native bool) ([]Block, error) {
	if native {
		return n.Blocks(ctx, from, to)
	}
	if from == to && to == head.Number {
		return []Block{{BlockRef: head}}, nil
	}
	hs, err := n.Headers(ctx, from, to)
	out := make([]Block, len(hs))
	for i, h := range hs {
		out[i] = Block{BlockRef: h}
	}
	return out, err
}

func (w *Watcher) batch() uint64     { return orDefault(w.Batch, DefaultBatch) }
func (w *Watcher) keep() uint64      { return orDefault(w.Keep, DefaultKeep) }
func (w *Watcher) startBack() uint64 { return orDefault(w.StartBack, DefaultStartBack) }

func orDefault(v, d uint64) uint64 {
	if v == 0 {
		return d
	}
	return v
}

func lower(s string) string { return strings.ToLower(s) }
