package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// addressSet is one step's view of what to look for: the watched deposit addresses
// by their 20 bytes, and the network's tokens by contract.
type addressSet struct {
	byAddress map[addrKey]watched
	bigRates  map[addrKey]*big.Rat // rates too large for a watched entry; nil while none is
	ids       invoiceIDs
	list      []string // lower-case, for log filters; empty beyond MaxRecipients addresses
	tokens    map[string]kassa.Token
	contracts []string
	nativeTok *kassa.Token
	native    bool            // some watched address was quoted in the native coin
	own       map[string]bool // Kassa's own senders (the gas wallet): their top-ups are no payments
}

func newAddressSet(addrs []watch.Address, tokens []kassa.Token, own []string) *addressSet {
	s := &addressSet{byAddress: make(map[addrKey]watched, len(addrs)), tokens: map[string]kassa.Token{},
		own: map[string]bool{}}
	for _, a := range own {
		s.own[lower(a)] = true
	}
	for _, t := range tokens {
		if t.Type == kassa.TokenNative {
			tok := t
			s.nativeTok = &tok
			continue
		}
		s.tokens[lower(t.Address)] = t
		s.contracts = append(s.contracts, lower(t.Address))
	}
	for _, a := range addrs {
		key, ok := parseAddr(a.Address)
		if !ok {
			continue
		}
		s.byAddress[key] = s.entry(key, s.ids.key(a.InvoiceID), a)
		if s.nativeTok != nil && a.TokenID == s.nativeTok.ID {
			s.native = true
		}
	}
	if len(s.byAddress) <= MaxRecipients {
		for key := range s.byAddress {
			s.list = append(s.list, addrString(key))
		}
		slices.Sort(s.list)
	}
	return s
}

// watching returns the entry of address to, if it is watched.
func (s *addressSet) watching(to string) (addrKey, watched, bool) {
	key, ok := parseAddr(to)
	if !ok {
		return key, watched{}, false
	}
	e, ok := s.byAddress[key]
	return key, e, ok
}

// nativePayment reports whether tx pays a watched address in the native coin: a
// value sent to it by anyone but Kassa itself (a gas top-up is no payment).
func (s *addressSet) nativePayment(tx *Tx) bool {
	_, _, ok := s.watching(tx.To)
	return ok && tx.Value != nil && tx.Value.Sign() > 0 && !s.own[lower(tx.From)]
}

// transfers finds the step's transfers to watched addresses: the Transfer logs of
// the network's tokens, each checked to be in the very blocks the step verified
// (a node answers logs of orphaned blocks too), and native transfers in the
// blocks' bodies when they were read.
func (w *Watcher) transfers(ctx context.Context, n Node, set *addressSet, blocks []Block) ([]kassa.Transfer, error) {
	if len(set.byAddress) == 0 {
		return nil, nil
	}
	from, to := blocks[0].Number, blocks[len(blocks)-1].Number
	var out []kassa.Transfer
	if len(set.contracts) > 0 {
		// Beyond MaxRecipients addresses, one query for every Transfer of the
		// tokens, matched here, costs fewer calls than many recipient chunks.
		recipients := set.list
		if len(set.byAddress) > MaxRecipients {
			recipients = nil
		}
		q := LogQuery{From: from, To: to, Tokens: set.contracts, Recipients: recipients}
		if from == to {
			q = LogQuery{BlockHash: blocks[0].Hash, Tokens: set.contracts, Recipients: recipients}
		}
		logs, err := n.Transfers(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, t := range logs {
			if t.Block.Number < from || t.Block.Number > to || blocks[t.Block.Number-from].Hash != t.Block.Hash {
				return nil, errViewChanged
			}
			t.Block = blocks[t.Block.Number-from].BlockRef // with its time, which a log lacks
			if _, _, ok := set.watching(t.To); ok {
				out = append(out, t)
			}
		}
	}
	if set.native {
		for _, b := range blocks {
			for _, tx := range b.Txs {
				if set.nativePayment(&tx) {
					out = append(out, kassa.Transfer{Network: w.Network.Name, TxHash: tx.Hash, LogIndex: kassa.NativeLogIndex,
						Block: b.BlockRef, From: tx.From, To: tx.To, Amount: tx.Value})
				}
			}
		}
	}
	return out, nil
}

// ingest reports one transfer to the ingestion path, with its confirmations at
// head. A transfer already recorded for another invoice is logged and skipped.
func (w *Watcher) ingest(ctx context.Context, set *addressSet, t kassa.Transfer, head uint64) error {
	in, ok, err := w.input(ctx, set, t, head)
	if err != nil || !ok {
		return err
	}
	_, _, err = w.Store.IngestPayment(ctx, in)
	var kerr *kassa.Error
	if errors.As(err, &kerr) && kerr.Kind != kassa.KindInternal {
		w.log().Warn("transfer not recorded", "tx", t.TxHash, "log_index", t.LogIndex, "reason", kerr.Message)
		return nil
	}
	return err
}

// input turns a transfer into the ingestion path's input: the invoice of its
// recipient, the token, the USD value (value), and the confirmations at head.
func (w *Watcher) input(ctx context.Context, set *addressSet, t kassa.Transfer, head uint64) (kassa.PaymentInput, bool, error) {
	key, e, ok := set.watching(t.To)
	if !ok || t.Amount == nil || t.Amount.Sign() <= 0 {
		return kassa.PaymentInput{}, false, nil
	}
	addr := set.address(key, e)
	var tok kassa.Token
	if t.TokenAddress == "" {
		if set.nativeTok == nil {
			return kassa.PaymentInput{}, false, nil
		}
		tok = *set.nativeTok
	} else if tok, ok = set.tokens[lower(t.TokenAddress)]; !ok {
		return kassa.PaymentInput{}, false, nil
	}
	rate := w.value(ctx, addr, tok, t.Block.Time)
	conf := kassa.Confirmations(head, t.Block.Number)
	return kassa.PaymentInput{MerchantID: addr.MerchantID, InvoiceID: addr.InvoiceID, Network: w.Network.Name,
		TxHash: lower(t.TxHash), LogIndex: t.LogIndex, TokenID: tok.ID, FromAddress: kassa.ChecksumAddress(t.From),
		AmountUnits: new(big.Int).Set(t.Amount), AmountUSD: kassa.TokenMillis(t.Amount, tok.Decimals, rate),
		Unpriced: rate == nil && tok.ID == addr.TokenID, Confirmations: conf, Confirmed: conf >= w.Network.Confirmations,
		BlockNumber: t.Block.Number, BlockHash: t.Block.Hash}, true, nil
}

// value is the rate a transfer of tok to addr, in a block made at blockTime
// (zero: unknown, taken as now), is valued at: the quote's locked rate while it
// holds (kassa.QuoteHolds); in the quoted token after that, the market rate at
// the block's time but never better for the payor than the locked one
// (kassa.LateRate); in another token, the market rate (such money is kept for a
// person anyway). Nil when no rate is known.
func (w *Watcher) value(ctx context.Context, addr watch.Address, tok kassa.Token, blockTime time.Time) *big.Rat {
	if blockTime.IsZero() {
		blockTime = w.now()
	}
	if tok.ID == addr.TokenID && kassa.QuoteHolds(addr.QuoteExpiresAt, blockTime) {
		return addr.USDPerToken
	}
	var market *big.Rat
	if w.Rates != nil {
		if r, err := kassa.RateAt(ctx, w.Rates, tok, blockTime); err == nil {
			market = r.USDPerToken
		}
	}
	if tok.ID != addr.TokenID {
		return market
	}
	rate := kassa.LateRate(addr.USDPerToken, market)
	w.log().Warn("a transfer came after its quote ran out: valued at the market rate of its block's time, at most the locked one",
		"invoice", addr.InvoiceID, "quote_expired", kassa.FormatTime(addr.QuoteExpiresAt), "block_time", kassa.FormatTime(blockTime),
		"locked", addr.USDPerToken.FloatString(8), "rate", ratString(rate))
	return rate
}

// ratString renders a rate for a log line; "none" when nil.
func ratString(r *big.Rat) string {
	if r == nil {
		return "none"
	}
	return r.FloatString(8)
}

// confirm recounts the confirmations of the network's pending payments (and of
// those set aside for a person, until they have them) at head
// (the last block processed) and reports those that changed to the ingestion path;
// one whose count reaches the network's confirmations is confirmed. Refunds the
// merchant paid from their own wallet are confirmed likewise (ownwallet.go). A payment
// whose block left the chain has none until it is seen again.
func (w *Watcher) confirm(ctx context.Context, head uint64) error {
	if _, err := w.Store.ConfirmOwnWalletRefunds(ctx, w.Network.Environment, w.Network.Name, head, w.Network.Confirmations); err != nil {
		return err
	}
	ps, err := w.Store.PendingChainPayments(ctx, w.Network.Name, w.Network.Confirmations)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Orphaned() {
			continue
		}
		conf := kassa.Confirmations(head, p.BlockNumber)
		if conf == p.Confirmations {
			continue
		}
		in := kassa.PaymentInput{MerchantID: p.MerchantID, InvoiceID: p.InvoiceID, Network: p.Network, TxHash: p.TxHash,
			LogIndex: p.LogIndex, TokenID: p.TokenID, FromAddress: p.FromAddress, AmountUnits: p.AmountUnits,
			AmountUSD: p.AmountUSD, Confirmations: conf, Confirmed: conf >= w.Network.Confirmations,
			BlockNumber: p.BlockNumber, BlockHash: p.BlockHash}
		if _, _, err := w.Store.IngestPayment(ctx, in); err != nil {
			return fmt.Errorf("chain: confirm %s: %w", p.TxHash, err)
		}
	}
	return nil
}
