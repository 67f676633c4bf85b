package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// advance moves a payout one step: a queued one is planned (topped up or sent);
// a funding one is sent once its top-up is confirmed; a sending one waits for
// its transfer (track).
func (s *Sender) advance(ctx context.Context, head uint64, p *outbox.Payout, pending map[string]*outbox.Tx) error {
	switch p.Status {
	case outbox.PayoutQueued:
		return s.plan(ctx, head, p, false)
	case outbox.PayoutFunding:
		if _, waiting := pending[p.TopupTxID]; waiting {
			return nil
		}
		return s.plan(ctx, head, p, true)
	}
	return nil
}

// transferCall is a payout's transfer: the token's transfer(to, amount), or the
// native amount itself.
func transferCall(t kassa.Token, p *outbox.Payout) Call {
	if t.Type == kassa.TokenNative {
		return Call{From: p.From, To: p.To, Value: new(big.Int).Set(p.Amount)}
	}
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(common.HexToAddress(p.To).Bytes(), 32)...)
	data = append(data, common.LeftPadBytes(p.Amount.Bytes(), 32)...)
	return Call{From: p.From, To: t.Address, Value: new(big.Int), Data: data}
}

// plan prices a payout's transfer now (gas estimated with the margin, EIP-1559
// fees from the node) and sends it when its sender can pay the gas; a deposit
// address that cannot is first topped up from the gas wallet with twice the gas
// cost (room for fee bumps). A gas wallet short of funds leaves the payout
// queued with the reason: it goes through once the wallet is funded.
func (s *Sender) plan(ctx context.Context, head uint64, p *outbox.Payout, toppedUp bool) error {
	tok, err := s.token(p.TokenID)
	if err != nil {
		return err
	}
	call := transferCall(tok, p)
	if p.FromIndex == outbox.GasWalletIndex && tok.Type != kassa.TokenNative {
		// A standard ERC-20 reverts the estimate of a transfer its sender cannot
		// pay: say what is short rather than "execution reverted".
		held, err := s.Account.TokenBalance(ctx, tok.Address, p.From)
		if err != nil {
			return err
		}
		if held.Cmp(p.Amount) < 0 {
			return s.wait(ctx, p, fmt.Sprintf("the gas wallet %s holds %s %s, the refund needs %s", p.From,
				kassa.FormatUnits(held, tok.Decimals), tok.Symbol, kassa.FormatUnits(p.Amount, tok.Decimals)))
		}
	}
	gas, err := s.Account.EstimateGas(ctx, call)
	switch {
	case err != nil && p.FromIndex != outbox.GasWalletIndex && !IsEndpointFault(err) && !errors.Is(err, ErrUnavailable):
		// The node refuses the sweep itself (it reverts): the deposit address does
		// not hold what was received. Counted; the payout fails after the retries.
		s.log().Error("chain send: a sweep cannot be made", "payout", p.ID, "from", p.From, "err", err)
		return s.Store.FailAttempt(ctx, p.ID, fmt.Sprintf("the sweep from %s cannot be made: %v", p.From, err))
	case err != nil:
		return s.wait(ctx, p, fmt.Sprintf("the transfer cannot be estimated: %v", err))
	}
	gas = s.withMargin(gas)
	tip, base, err := s.Account.Fees(ctx)
	if err != nil {
		return err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	need := cost(call.Value, gas, feeCap)
	have, err := s.Account.Balance(ctx, p.From)
	if err != nil {
		return err
	}
	tx := &outbox.Tx{Environment: p.Environment, Network: p.Network, From: p.From, FromIndex: p.FromIndex, Purpose: outbox.TxTransfer,
		PayoutID: p.ID, PayoutAmount: p.Amount, To: call.To, Value: call.Value, Data: call.Data, GasLimit: gas}
	if have.Cmp(need) >= 0 {
		return s.signAndSend(ctx, head, tx, 0, &fees{tip, feeCap})
	}
	if p.FromIndex == outbox.GasWalletIndex {
		return s.wait(ctx, p, fmt.Sprintf("the gas wallet %s holds %s wei of %s, the refund needs %s", p.From, have, s.Network.NativeSymbol, need))
	}
	if toppedUp && have.Sign() > 0 {
		// Fees rose since the top-up: a second top-up covers the difference.
		s.log().Info("chain send: fees rose since the top-up; topping up again", "payout", p.ID)
	}
	headroom := cost(call.Value, gas*topupHeadroom, feeCap)
	return s.topUp(ctx, head, p, new(big.Int).Sub(headroom, have), tip, feeCap)
}

// topUp sends value from the gas wallet to a payout's deposit address, if the
// gas wallet can pay it on top of its transactions still pending.
func (s *Sender) topUp(ctx context.Context, head uint64, p *outbox.Payout, value, tip, feeCap *big.Int) error {
	gasAddr, err := s.GasAddress()
	if err != nil {
		return err
	}
	// Estimated without the value: a node refuses to estimate what the sender
	// cannot pay, and the balance is checked below with a clearer reason.
	gas, err := s.Account.EstimateGas(ctx, Call{From: gasAddr, To: p.From})
	if err != nil {
		return s.wait(ctx, p, fmt.Sprintf("the gas top-up cannot be estimated: %v", err))
	}
	gas = s.withMargin(gas)
	have, err := s.Account.Balance(ctx, gasAddr)
	if err != nil {
		return err
	}
	committed, err := s.committed(ctx, gasAddr)
	if err != nil {
		return err
	}
	need := new(big.Int).Add(cost(value, gas, feeCap), committed)
	if have.Cmp(need) < 0 {
		return s.wait(ctx, p, fmt.Sprintf("the gas wallet %s holds %s wei of %s, its queued transactions need %s",
			gasAddr, have, s.Network.NativeSymbol, need))
	}
	tx := &outbox.Tx{Environment: p.Environment, Network: p.Network, From: gasAddr, FromIndex: outbox.GasWalletIndex, Purpose: outbox.TxTopup,
		PayoutID: p.ID, To: p.From, Value: value, GasLimit: gas}
	return s.signAndSend(ctx, head, tx, 0, &fees{tip, feeCap})
}

// committed is what the gas wallet's pending transactions may still spend.
func (s *Sender) committed(ctx context.Context, from string) (*big.Int, error) {
	txs, err := s.Store.OutboxTxs(ctx, s.Network.Environment, s.Network.Name, ^uint64(0))
	if err != nil {
		return nil, err
	}
	sum := new(big.Int)
	for _, t := range txs {
		if t.Status == outbox.TxPending && t.BlockHash == "" && strings.EqualFold(t.From, from) {
			sum.Add(sum, cost(t.Value, t.GasLimit, t.Latest().FeeCap))
		}
	}
	return sum, nil
}

// wait records why a payout waits, logging it when the reason changes.
func (s *Sender) wait(ctx context.Context, p *outbox.Payout, reason string) error {
	if p.Reason != reason {
		s.log().Warn("chain send: payout waits", "payout", p.ID, "kind", p.Kind, "reason", reason)
	}
	return s.Store.WaitPayout(ctx, p.ID, reason)
}

type fees struct{ tip, feeCap *big.Int }

// signAndSend stores tx signed under its sender's next nonce (or exactly nonce,
// for a filler) and broadcasts it.
func (s *Sender) signAndSend(ctx context.Context, head uint64, tx *outbox.Tx, nonce uint64, f *fees) error {
	if f == nil {
		tip, base, err := s.Account.Fees(ctx)
		if err != nil {
			return err
		}
		f = &fees{tip, new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)}
	}
	if tx.Purpose != outbox.TxFiller {
		var err error
		if nonce, err = s.Account.Nonce(ctx, tx.From, true); err != nil {
			return err
		}
	}
	key, err := s.key(tx)
	if err != nil {
		return err
	}
	stored, err := s.Store.AddTx(ctx, tx, nonce, func(n uint64) (outbox.Attempt, error) {
		return sign(key, s.Network.ChainID, tx, n, f.tip, f.feeCap, head)
	})
	if err != nil {
		return err
	}
	s.log().Info("chain send: signed and stored", "purpose", stored.Purpose, "from", stored.From, "nonce", stored.Nonce,
		"hash", stored.Latest().Hash)
	return s.broadcast(ctx, stored, stored.Latest())
}

// key returns the private key t is signed with: the gas wallet's or its deposit
// address's.
func (s *Sender) key(t *outbox.Tx) ([]byte, error) {
	if t.FromIndex == outbox.GasWalletIndex {
		return s.Keys.GasKey(s.Network)
	}
	if t.FromIndex < 0 || t.FromIndex > 1<<31-1 {
		return nil, fmt.Errorf("chain: address index %d", t.FromIndex)
	}
	return s.Keys.DepositKey(s.Network, uint32(t.FromIndex))
}

// sign signs an EIP-1559 transaction of t's fields at nonce.
func sign(key []byte, chainID int64, t *outbox.Tx, nonce uint64, tip, feeCap *big.Int, head uint64) (outbox.Attempt, error) {
	priv, err := crypto.ToECDSA(key)
	if err != nil {
		return outbox.Attempt{}, fmt.Errorf("chain: signing key: %w", err)
	}
	if from := crypto.PubkeyToAddress(priv.PublicKey); !strings.EqualFold(from.Hex(), t.From) {
		return outbox.Attempt{}, fmt.Errorf("chain: the key of index %d signs for %s, not %s", t.FromIndex, from.Hex(), t.From)
	}
	to := common.HexToAddress(t.To)
	id := big.NewInt(chainID)
	signed, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: feeCap, Gas: t.GasLimit, To: &to, Value: t.Value, Data: t.Data}), types.LatestSignerForChainID(id), priv)
	if err != nil {
		return outbox.Attempt{}, fmt.Errorf("chain: sign: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return outbox.Attempt{}, fmt.Errorf("chain: encode: %w", err)
	}
	return outbox.Attempt{Hash: strings.ToLower(signed.Hash().Hex()), Raw: raw, Tip: new(big.Int).Set(tip),
		FeeCap: new(big.Int).Set(feeCap), SignedAt: head}, nil
}
