package chain

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/watch"
	"github.com/kassapay/kassa/worker"
)

// Watchers is the set of watched networks of a deployment: it runs each network's
// watcher and looks transactions up for verify (payment.ChainVerifier).
type Watchers struct {
	mu      sync.RWMutex
	entries map[string]*entry // by environment + "/" + network
	lookups lookupCache       // verify's recent look-ups
}

type entry struct {
	w        *Watcher
	interval time.Duration
}

var _ payment.ChainVerifier = (*Watchers)(nil)

func key(env kassa.Environment, network string) string { return string(env) + "/" + network }

// Add registers w, to be run every interval (the network's block time).
func (ws *Watchers) Add(w *Watcher, interval time.Duration) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.entries == nil {
		ws.entries = map[string]*entry{}
	}
	ws.entries[key(w.Network.Environment, w.Network.Name)] = &entry{w: w, interval: interval}
}

// Watched reports whether network of env has a watcher.
func (ws *Watchers) Watched(env kassa.Environment, network string) bool {
	return ws.get(env, network) != nil
}

func (ws *Watchers) get(env kassa.Environment, network string) *entry {
	if ws == nil {
		return nil
	}
	ws.mu.RLock()
	defer ws.mu.RUnlock()
	return ws.entries[key(env, network)]
}

// Run runs every watcher until ctx ends. A network with a WebSocket endpoint
// (kassa.Network.WSURL) is stepped on each of its new heads (Heads) as well as
// every interval. A watcher holds its network's lease for
// ten rounds at a time (at least 30 s) and renews it every round; an instance that
// stops lets another take over once it runs out.
func (ws *Watchers) Run(ctx context.Context, log *slog.Logger) {
	ws.mu.RLock()
	var all []*entry
	for _, e := range ws.entries {
		all = append(all, e)
	}
	ws.mu.RUnlock()
	var wg sync.WaitGroup
	for _, e := range all {
		ttl := leaseTTL(e.interval)
		loop := worker.Loop{Name: "chain watcher " + e.w.Network.Name, Interval: e.interval, Log: log}
		if u := e.w.Network.WSURL; u != "" {
			wake := make(chan struct{}, 1)
			loop.Wake = wake
			h := Heads{URL: u, Network: e.w.Network.Name, Wake: wake, Metrics: e.w.Metrics, Log: log}
			wg.Go(func() { h.Run(ctx) })
		}
		wg.Go(func() {
			loop.Run(ctx, func(ctx context.Context) (bool, error) { return e.w.Round(ctx, ttl) })
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = e.w.Store.ReleaseLease(rctx, LeaseName(e.w.Network.Name), e.w.Holder)
		})
	}
	wg.Wait()
}

// VerifyTransaction looks txHash up on network now and ingests every transfer in
// it to one of the invoice's deposit addresses, as the watcher would: a mined,
// successful transaction in a canonical block, its confirmations counted at the
// node's head. A transaction the node does not know is not an error: it may not
// be mined yet. The look-up is remembered for LookupTTL, "not found" included:
// the same hash again within it makes no RPC call, and no store scan unless the
// transaction has transfers for an invoice not yet given them.
func (ws *Watchers) VerifyTransaction(ctx context.Context, inv *kassa.Invoice, network, txHash string) error {
	e := ws.get(inv.Environment, network)
	if e == nil {
		return kassa.Invalidf("network", "network_not_watched", "Kassa does not watch network %s: no RPC endpoint is configured.", network)
	}
	w := e.w
	l, err := ws.lookups.get(ctx, key(inv.Environment, network)+"/"+lower(txHash), w.now(), func() (*lookup, error) {
		return w.lookUp(ctx, txHash)
	})
	if err != nil || !l.transfers || !ws.lookups.firstIngest(l, inv.ID) {
		return err
	}
	if err := w.ingestTx(ctx, inv, l); err != nil {
		ws.lookups.forget(l, inv.ID)
		return err
	}
	return nil
}

// lookUp asks a node for txHash: the transaction, its block if canonical, and
// the head. A transaction that is not known, not mined, failed or not in a
// canonical block has no transfers to ingest.
func (w *Watcher) lookUp(ctx context.Context, txHash string) (*lookup, error) {
	var out *lookup
	err := w.Nodes.Step(ctx, func(n Node) error {
		out = &lookup{}
		tx, err := n.Transaction(ctx, lower(txHash))
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		head, err := n.Head(ctx)
		if err != nil {
			return err
		}
		hs, err := n.Headers(ctx, tx.Block.Number, tx.Block.Number)
		if err != nil || len(hs) != 1 || hs[0].Hash != tx.Block.Hash || !tx.Succeeded {
			return err // not in a canonical block (or failed): nothing to ingest
		}
		out.transfers, out.tx, out.block, out.head = true, tx, hs[0], head.Number
		return nil
	})
	return out, err
}

// ingestTx ingests the transfers of a looked-up transaction to the invoice's
// deposit addresses.
func (w *Watcher) ingestTx(ctx context.Context, inv *kassa.Invoice, l *lookup) error {
	all, err := w.Store.WatchedAddresses(ctx, inv.Environment, w.Network.Name, w.now())
	if err != nil {
		return err
	}
	var mine []watch.Address
	for _, a := range all {
		if a.InvoiceID == inv.ID && a.MerchantID == inv.MerchantID {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	set := newAddressSet(mine, w.Tokens, w.Own)
	set.native = set.nativeTok != nil
	for _, t := range txTransfers(w.Network.Name, set, l.tx, l.block) {
		if err := w.ingest(ctx, set, t, l.head); err != nil {
			return err
		}
	}
	return nil
}

// txTransfers picks a transaction's transfers to the set's addresses: Transfer
// logs of the network's tokens, and its native value.
func txTransfers(network string, set *addressSet, tx *Tx, block kassa.BlockRef) []kassa.Transfer {
	var out []kassa.Transfer
	for _, t := range tx.Transfers {
		if _, ok := set.tokens[lower(t.TokenAddress)]; !ok {
			continue
		}
		if _, _, ok := set.watching(t.To); ok {
			t.Network, t.Block = network, block
			out = append(out, t)
		}
	}
	if set.native && set.nativePayment(tx) {
		out = append(out, kassa.Transfer{Network: network, TxHash: tx.Hash, LogIndex: kassa.NativeLogIndex,
			Block: block, From: tx.From, To: tx.To, Amount: tx.Value})
	}
	return out
}
