package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// track follows one outbox transaction: which of its versions is mined, in which
// block, with how many confirmations; a version mined and then dropped by a
// reorganisation makes it pending again. A pending one is broadcast again (a
// node that restarted or dropped it gets it back), replaced by a fee bump once
// its newest version waited BumpAfter blocks, and declared displaced when
// another transaction spent its nonce and none of its versions is mined.
func (s *Sender) track(ctx context.Context, head uint64, t *outbox.Tx) error {
	mined, err := s.minedVersion(ctx, t)
	if err != nil {
		return err
	}
	if mined != nil {
		delete(s.displaced, t.ID)
		return s.recordMined(ctx, head, t, mined)
	}
	if t.Status == outbox.TxConfirmed || t.BlockHash != "" {
		s.log().Warn("chain send: a reorganisation dropped a transaction; sending it again", "tx", t.ID, "hash", t.MinedHash)
		if err := s.Store.RecordTx(ctx, t.ID, outbox.Outcome{Status: outbox.TxPending}); err != nil {
			return err
		}
		t.Status, t.BlockHash = outbox.TxPending, ""
	}
	spent, err := s.Account.Nonce(ctx, t.From, false)
	if err != nil {
		return err
	}
	if spent > t.Nonce {
		// Another transaction took the nonce, or ours is mined where this node
		// does not show it yet: wait the confirmations before deciding.
		first, seen := s.displaced[t.ID]
		if !seen {
			s.displaced[t.ID] = head
			return nil
		}
		if head-first < uint64(s.Network.Confirmations) {
			return nil
		}
		delete(s.displaced, t.ID)
		s.log().Warn("chain send: another transaction used the nonce; signing a new one", "tx", t.ID, "from", t.From, "nonce", t.Nonce)
		return s.Store.RecordTx(ctx, t.ID, outbox.Outcome{Status: outbox.TxDisplaced,
			Reason: fmt.Sprintf("nonce %d of %s was used by another transaction", t.Nonce, t.From)})
	}
	delete(s.displaced, t.ID)
	if latest := t.Latest(); head >= latest.SignedAt+s.bumpAfter() && spent == t.Nonce {
		bumped, err := s.bump(ctx, head, t)
		if err != nil {
			return err
		}
		if bumped {
			return nil
		}
	}
	return s.broadcast(ctx, t, t.Latest())
}

// minedVersion returns the mined version of t, if any, newest version first.
func (s *Sender) minedVersion(ctx context.Context, t *outbox.Tx) (*Tx, error) {
	for i := len(t.Attempts) - 1; i >= 0; i-- {
		tx, err := s.Chain.Transaction(ctx, t.Attempts[i].Hash)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return tx, nil
	}
	return nil, nil
}

// recordMined records a mined version: confirmed (or reverted) once it has the
// network's confirmations, else pending in its block.
func (s *Sender) recordMined(ctx context.Context, head uint64, t *outbox.Tx, tx *Tx) error {
	o := outbox.Outcome{Status: outbox.TxPending, MinedHash: tx.Hash, Block: tx.Block, GasUsed: tx.GasUsed}
	if kassa.Confirmations(head, tx.Block.Number) >= s.Network.Confirmations {
		o.Status = outbox.TxConfirmed
		if !tx.Succeeded {
			o.Status, o.Reason = outbox.TxReverted, "the transaction reverted on chain"
		}
	}
	if o.Status == t.Status && o.MinedHash == t.MinedHash && o.Block.Hash == t.BlockHash {
		return nil
	}
	return s.Store.RecordTx(ctx, t.ID, o)
}

// broadcast sends a signed version again. Refusals other than a spent nonce are
// logged once per transaction: the next round tries again.
func (s *Sender) broadcast(ctx context.Context, t *outbox.Tx, a outbox.Attempt) error {
	err := s.Account.SendRaw(ctx, a.Raw)
	switch {
	case err == nil, errors.Is(err, ErrNonceTooLow):
		return nil // a spent nonce is looked into by the next round (track)
	case errors.Is(err, ErrInsufficientFunds):
		if !s.warned["funds "+t.ID] {
			s.warned["funds "+t.ID] = true
			s.log().Warn("chain send: the sender cannot pay for the transaction yet; it waits", "from", t.From, "tx", t.ID)
		}
		return nil
	case errors.Is(err, ErrUnderpriced):
		return nil // the next bump raises the fees
	}
	return err
}

// bump replaces t's newest version with the same nonce at fees raised by at least
// 12.5 % (and at least what the node suggests now), stores it and broadcasts it.
// It reports false when the sender could not afford the higher fee.
func (s *Sender) bump(ctx context.Context, head uint64, t *outbox.Tx) (bool, error) {
	last := t.Latest()
	tip, base, err := s.Account.Fees(ctx)
	if err != nil {
		return false, err
	}
	newTip := maxInt(outbox.BumpFee(last.Tip), tip)
	newCap := maxInt(outbox.BumpFee(last.FeeCap), new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), newTip))
	balance, err := s.Account.Balance(ctx, t.From)
	if err != nil {
		return false, err
	}
	if balance.Cmp(cost(t.Value, t.GasLimit, newCap)) < 0 {
		if !s.warned["bump "+t.ID] {
			s.warned["bump "+t.ID] = true
			s.log().Warn("chain send: a stuck transaction cannot be bumped: its sender cannot pay the higher fee", "from", t.From, "tx", t.ID)
		}
		return false, nil
	}
	key, err := s.key(t)
	if err != nil {
		return false, err
	}
	a, err := sign(key, s.Network.ChainID, t, t.Nonce, newTip, newCap, head)
	if err != nil {
		return false, err
	}
	if err := s.Store.AddAttempt(ctx, t.ID, a); err != nil {
		return false, err
	}
	t.Attempts = append(t.Attempts, a)
	s.log().Info("chain send: replaced a stuck transaction by a fee bump", "tx", t.ID, "nonce", t.Nonce,
		"tip", newTip, "fee_cap", newCap, "hash", a.Hash)
	return true, s.broadcast(ctx, t, a)
}

func maxInt(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// fillGaps closes a nonce gap: when a sender's lowest pending transaction has a
// nonce above the chain's count and no stored transaction holds the nonces
// between, nothing of it can ever be mined; an empty transaction to itself fills
// each missing nonce (at most 16).
func (s *Sender) fillGaps(ctx context.Context, head uint64, txs []*outbox.Tx) error {
	lowest := map[string]uint64{}
	held := map[string]map[uint64]bool{}
	fromIndex := map[string]int64{}
	for _, t := range txs {
		if t.Status != outbox.TxPending {
			continue
		}
		fromIndex[t.From] = t.FromIndex
		if n, ok := lowest[t.From]; !ok || t.Nonce < n {
			lowest[t.From] = t.Nonce
		}
		if held[t.From] == nil {
			held[t.From] = map[uint64]bool{}
		}
		held[t.From][t.Nonce] = true
	}
	for from, low := range lowest {
		spent, err := s.Account.Nonce(ctx, from, true)
		if err != nil {
			return err
		}
		if low <= spent || low-spent > 16 {
			continue
		}
		for n := spent; n < low; n++ {
			if held[from][n] {
				continue
			}
			s.log().Warn("chain send: filling a nonce gap", "from", from, "nonce", n)
			if err := s.signAndSend(ctx, head, &outbox.Tx{Environment: s.Network.Environment, Network: s.Network.Name,
				From: from, FromIndex: fromIndex[from], Purpose: outbox.TxFiller, To: from, Value: new(big.Int), GasLimit: 21000}, n, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
