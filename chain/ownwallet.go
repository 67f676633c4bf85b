package chain

import (
	"context"
	"strings"

	"github.com/kassapay/kassa"
)

// Refunds the merchant pays from their own wallet (kassa.OwnWalletPay): each step
// looks, in the blocks it verified, for a transfer of a waiting refund's token to
// its address, and the store marks the refund it pays sent
// (kassa.MatchOwnWalletTransfer); confirm counts their confirmations and a
// reorganisation gives them back (store's RewindChain). Nothing is asked of the
// node while no such refund waits: one filtered eth_getLogs per step for all the
// tokens and addresses waiting, and, for the native coin, the blocks' bodies
// (read instead of their headers).

// ownWaiting is one step's view of the refunds waiting for the merchant's transfer.
type ownWaiting struct {
	refunds    []*kassa.Refund
	contracts  []string               // lower-case, of the ERC-20 tokens waited for
	tokens     map[string]kassa.Token // by lower-case contract
	recipients []string               // lower-case refund addresses paid in a token
	native     map[string]bool        // lower-case refund addresses paid in the native coin
	nativeTok  *kassa.Token
}

// ownWalletWaiting reads the network's own-wallet refunds that wait for a
// transfer in a block up to to.
func (w *Watcher) ownWalletWaiting(ctx context.Context, set *addressSet, to uint64) (*ownWaiting, error) {
	rs, err := w.Store.OwnWalletRefunds(ctx, w.Network.Environment, w.Network.Name)
	if err != nil {
		return nil, err
	}
	out := &ownWaiting{tokens: map[string]kassa.Token{}, native: map[string]bool{}, nativeTok: set.nativeTok}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Status != kassa.RefundPending || r.OwnWallet == nil || r.OwnWallet.WatchFrom > to {
			continue
		}
		addr := strings.ToLower(r.Address)
		if set.nativeTok != nil && r.TokenID == set.nativeTok.ID {
			out.refunds, out.native[addr] = append(out.refunds, r), true
			continue
		}
		for contract, t := range set.tokens {
			if t.ID != r.TokenID {
				continue
			}
			out.refunds = append(out.refunds, r)
			if _, ok := out.tokens[contract]; !ok {
				out.tokens[contract] = t
				out.contracts = append(out.contracts, contract)
			}
			if !seen[addr] {
				seen[addr] = true
				out.recipients = append(out.recipients, addr)
			}
		}
	}
	return out, nil
}

// ownWalletTransfers reports the step's transfers to waiting refunds' addresses
// to the store, each checked to be in the very blocks the step verified.
func (w *Watcher) ownWalletTransfers(ctx context.Context, n Node, own *ownWaiting, blocks []Block) error {
	if len(own.refunds) == 0 {
		return nil
	}
	from, to := blocks[0].Number, blocks[len(blocks)-1].Number
	var found []kassa.Transfer
	var tokenIDs []int64
	if len(own.contracts) > 0 {
		q := LogQuery{From: from, To: to, Tokens: own.contracts, Recipients: own.recipients}
		if from == to {
			q = LogQuery{BlockHash: blocks[0].Hash, Tokens: own.contracts, Recipients: own.recipients}
		}
		logs, err := n.Transfers(ctx, q)
		if err != nil {
			return err
		}
		for _, t := range logs {
			if t.Block.Number < from || t.Block.Number > to || blocks[t.Block.Number-from].Hash != t.Block.Hash {
				return errViewChanged
			}
			tok, ok := own.tokens[lower(t.TokenAddress)]
			if !ok {
				continue
			}
			t.Block = blocks[t.Block.Number-from].BlockRef
			found, tokenIDs = append(found, t), append(tokenIDs, tok.ID)
		}
	}
	if len(own.native) > 0 && own.nativeTok != nil {
		for _, b := range blocks {
			for _, tx := range b.Txs {
				if own.native[lower(tx.To)] && tx.Value != nil && tx.Value.Sign() > 0 {
					found = append(found, kassa.Transfer{Network: w.Network.Name, TxHash: tx.Hash, LogIndex: kassa.NativeLogIndex,
						Block: b.BlockRef, From: tx.From, To: tx.To, Amount: tx.Value})
					tokenIDs = append(tokenIDs, own.nativeTok.ID)
				}
			}
		}
	}
	for i, t := range found {
		t.Network = w.Network.Name
		r, err := w.Store.RecordOwnWalletTransfer(ctx, w.Network.Environment, tokenIDs[i], t)
		if err != nil {
			return err
		}
		if r != nil {
			w.log().Info("a refund was paid from the merchant's own wallet", "refund", r.ID, "tx", t.TxHash, "block", t.Block.Number)
		}
	}
	return nil
}
