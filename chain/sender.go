package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/worker"
)

// Sender moves money out on one network: it sweeps deposit addresses to
// merchants, pays commerce refunds from the gas wallet and tops deposit addresses
// up with gas, through the store's outbox (decisions.md, "Chains"). Every
// transaction is signed and stored with its nonce before it is broadcast; each
// round broadcasts what is stored again, replaces a version that waited
// BumpAfter blocks by a fee bump, follows the versions to their confirmations and
// notices a reorganisation that drops one. One instance of several sends for a
// network at a time (the lease "chain-send:<network>").
type Sender struct {
	Network kassa.Network
	Tokens  []kassa.Token // the registry's tokens of Network
	Chain   Node          // Head and Transaction (Pool.Node)
	Account Account       // nonces, balances, gas, fees, broadcast (Pool.Account)
	Store   PayoutStore
	Keys    KeyRing
	Leaser  worker.Leaser
	Holder  string // this instance, in the lease
	Log     *slog.Logger
	// BumpAfter is how many blocks a signed version may wait unmined before it is
	// replaced by a fee bump (DefaultBumpAfter when 0).
	BumpAfter uint64
	// GasMarginPercent is added to every gas estimate (DefaultGasMargin when 0).
	GasMarginPercent uint64
	// KeepWatching is how many blocks past its confirmation a transaction is still
	// checked against reorganisations (DefaultKeepWatching when 0).
	KeepWatching uint64

	report    atomic.Pointer[GasReport] // the last gas report (LastGasReport)
	gas       string                    // the gas wallet's address, derived once
	displaced map[string]uint64         // tx id → head when its nonce was first seen spent by another transaction
	warned    map[string]bool           // what was logged once
}

// Defaults of a Sender.
const (
	DefaultBumpAfter    = 3
	DefaultGasMargin    = 20
	DefaultKeepWatching = 64
	// topupHeadroom multiplies a sweep's gas cost in its top-up, so that fee
	// bumps stay affordable (1.125^5 < 2).
	topupHeadroom = 2
)

// SendLeaseName is the name of the lease that lets one instance send on network.
func SendLeaseName(network string) string { return "chain-send:" + network }

func (s *Sender) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log.With("network", s.Network.Name)
}

// GasAddress returns the network's gas wallet address.
func (s *Sender) GasAddress() (string, error) {
	if s.gas == "" {
		a, err := s.Keys.GasAddress(s.Network)
		if err != nil {
			return "", err
		}
		s.gas = a
	}
	return s.gas, nil
}

// Run sends until ctx ends, a round every interval (worker.Loop).
func (s *Sender) Run(ctx context.Context, interval time.Duration) {
	worker.Loop{Name: "chain send " + s.Network.Name, Interval: interval, Log: s.log()}.Run(ctx, func(ctx context.Context) (bool, error) {
		return false, s.Round(ctx)
	})
}

// Round is one pass while this instance holds the network's send lease: queue
// the refunds due, follow every outbox transaction, then move every open payout
// one step.
func (s *Sender) Round(ctx context.Context) error {
	if s.Leaser != nil {
		ok, err := s.Leaser.TryLease(ctx, SendLeaseName(s.Network.Name), s.Holder, 30*time.Second)
		if err != nil {
			return err
		}
		if !ok { // another instance sends; this one still reports the wallet for its /readyz
			return s.refreshReport(ctx)
		}
	}
	if s.displaced == nil {
		s.displaced, s.warned = map[string]uint64{}, map[string]bool{}
	}
	gas, err := s.GasAddress()
	if err != nil {
		return err
	}
	head, err := s.Chain.Head(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Store.QueueRefunds(ctx, s.Network.Environment, s.Network.Name, gas, s.Tokens); err != nil {
		return err
	}
	since := uint64(0)
	if keep := uint64(s.Network.Confirmations) + s.keepWatching(); head.Number > keep {
		since = head.Number - keep
	}
	txs, err := s.Store.OutboxTxs(ctx, s.Network.Environment, s.Network.Name, since)
	if err != nil {
		return err
	}
	for _, t := range txs {
		if err := s.track(ctx, head.Number, t); err != nil {
			s.log().Warn("chain send: following a transaction", "tx", t.ID, "nonce", t.Nonce, "err", err)
		}
	}
	if err := s.fillGaps(ctx, head.Number, txs); err != nil {
		s.log().Warn("chain send: closing a nonce gap", "err", err)
	}
	payouts, err := s.Store.OpenPayouts(ctx, s.Network.Environment, s.Network.Name)
	if err != nil {
		return err
	}
	pending := pendingOf(txs)
	for _, p := range payouts {
		if err := s.advance(ctx, head.Number, p, pending); err != nil {
			s.log().Warn("chain send: payout", "payout", p.ID, "kind", p.Kind, "err", err)
		}
	}
	return s.refreshReport(ctx)
}

// refreshReport looks the gas wallet up again when the last report is older
// than reportEvery, and warns once when it turns short. Every instance does this,
// the send lease's holder or not, so each one's /readyz tells the operator.
func (s *Sender) refreshReport(ctx context.Context) error {
	last := s.report.Load()
	if last != nil && time.Since(last.CheckedAt) < reportEvery {
		return nil
	}
	r, err := s.GasReport(ctx)
	if err != nil {
		return err
	}
	if r.Short && (last == nil || !last.Short) {
		s.log().Warn("chain send: the gas wallet cannot pay for the waiting payouts; fund it", "address", r.Address,
			"balance_wei", r.Balance, "need_wei", r.Need, "waiting", r.Waiting)
	}
	s.report.Store(r)
	return nil
}

// reportEvery is how often a round refreshes the gas report.
const reportEvery = 30 * time.Second

// LastGasReport returns the gas report of a recent round; nil before the first.
func (s *Sender) LastGasReport() *GasReport { return s.report.Load() }

func (s *Sender) keepWatching() uint64 {
	if s.KeepWatching == 0 {
		return DefaultKeepWatching
	}
	return s.KeepWatching
}

func (s *Sender) bumpAfter() uint64 {
	if s.BumpAfter == 0 {
		return DefaultBumpAfter
	}
	return s.BumpAfter
}

// withMargin adds the gas margin to an estimate.
func (s *Sender) withMargin(gas uint64) uint64 {
	m := s.GasMarginPercent
	if m == 0 {
		m = DefaultGasMargin
	}
	return gas + gas*m/100
}

// token returns the network's token id.
func (s *Sender) token(id int64) (kassa.Token, error) {
	for _, t := range s.Tokens {
		if t.ID == id {
			return t, nil
		}
	}
	return kassa.Token{}, fmt.Errorf("chain: token %d is not on %s", id, s.Network.Name)
}

// pendingOf indexes the pending transactions by id.
func pendingOf(txs []*outbox.Tx) map[string]*outbox.Tx {
	out := map[string]*outbox.Tx{}
	for _, t := range txs {
		if t.Status == outbox.TxPending {
			out[t.ID] = t
		}
	}
	return out
}

// cost is what a transaction may spend at most: value + gas limit × fee cap.
func cost(value *big.Int, gas uint64, feeCap *big.Int) *big.Int {
	c := new(big.Int).Mul(new(big.Int).SetUint64(gas), feeCap)
	if value != nil {
		c.Add(c, value)
	}
	return c
}
