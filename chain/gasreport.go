package chain

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// GasReport is the state of a network's gas wallet: what it holds and what the
// payouts waiting on it may spend. `kassa wallet` prints it and /readyz reports
// a wallet that is short (it stays ready: sweeps wait, nothing fails).
type GasReport struct {
	Environment kassa.Environment   `json:"environment"`
	Network     string              `json:"network"`
	Address     string              `json:"address"`
	Native      string              `json:"native_symbol"`
	Balance     *big.Int            `json:"-"` // wei
	Tokens      map[string]*big.Int `json:"-"` // symbol → base units
	// TokenNeed is what the waiting refunds pay out of the wallet in each
	// token (symbol → base units).
	TokenNeed map[string]*big.Int `json:"-"`
	// Waiting is how many payouts are queued or funding; Need what their top-ups
	// (with the fee-bump headroom) and the wallet's pending transactions may
	// spend at today's fees, in wei.
	Waiting int `json:"waiting_payouts"`
	// SweepCost is what settling one receipt of each token (by id) costs in gas
	// at today's fees: the top-up and the transfer at the base fee plus the tip,
	// in wei. The gas is the node's estimate, or the usual figure of the token's
	// kind (usualGas) where the node refuses to estimate: a standard ERC-20
	// reverts a transfer from a gas wallet that holds none of it.
	SweepCost map[int64]*big.Int `json:"-"`
	Need      *big.Int           `json:"-"`
	Short     bool               `json:"short"`
	CheckedAt time.Time          `json:"checked_at"`
}

// GasReport looks the gas wallet up now.
func (s *Sender) GasReport(ctx context.Context) (*GasReport, error) {
	gas, err := s.GasAddress()
	if err != nil {
		return nil, err
	}
	r := &GasReport{Environment: s.Network.Environment, Network: s.Network.Name, Address: gas,
		Native: s.Network.NativeSymbol, Tokens: map[string]*big.Int{}, TokenNeed: map[string]*big.Int{}, CheckedAt: time.Now().UTC()}
	if r.Balance, err = s.Account.Balance(ctx, gas); err != nil {
		return nil, err
	}
	for _, t := range s.Tokens {
		if t.Type == kassa.TokenNative {
			continue
		}
		b, err := s.Account.TokenBalance(ctx, t.Address, gas)
		if err != nil {
			return nil, fmt.Errorf("%s balance: %w", t.Symbol, err)
		}
		r.Tokens[t.Symbol] = b
	}
	if r.Need, err = s.committed(ctx, gas); err != nil {
		return nil, err
	}
	payouts, err := s.Store.OpenPayouts(ctx, s.Network.Environment, s.Network.Name)
	if err != nil {
		return nil, err
	}
	tip, base, err := s.Account.Fees(ctx)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	for _, p := range payouts {
		if p.Status != outbox.PayoutQueued && p.Status != outbox.PayoutFunding {
			continue
		}
		r.Waiting++
		if p.Status != outbox.PayoutQueued {
			continue // its top-up is pending: counted in committed
		}
		tok, err := s.token(p.TokenID)
		if err != nil {
			continue
		}
		call := transferCall(tok, p)
		gasUnits, err := s.Account.EstimateGas(ctx, call)
		if p.FromIndex == outbox.GasWalletIndex { // a refund, paid from the gas wallet itself
			if err != nil { // a node will not estimate what the wallet cannot pay: assume the usual
				gasUnits = usualGas[tok.Type == kassa.TokenNative]
			}
			r.Need.Add(r.Need, cost(call.Value, s.withMargin(gasUnits), feeCap))
			if tok.Type != kassa.TokenNative {
				if r.TokenNeed[tok.Symbol] == nil {
					r.TokenNeed[tok.Symbol] = new(big.Int)
				}
				r.TokenNeed[tok.Symbol].Add(r.TokenNeed[tok.Symbol], p.Amount)
			}
			continue
		}
		if err != nil {
			continue // the sweep itself fails: counted as a failed attempt, not a gas need
		}
		r.Need.Add(r.Need, cost(nil, s.withMargin(gasUnits)*topupHeadroom+s.withMargin(21000), feeCap))
	}
	r.Short = r.Balance.Cmp(r.Need) < 0
	for sym, need := range r.TokenNeed {
		if have := r.Tokens[sym]; have == nil || have.Cmp(need) < 0 {
			r.Short = true
		}
	}
	r.SweepCost = s.sweepCosts(ctx, gas, new(big.Int).Add(base, tip))
	return r, nil
}

// sweepCosts estimates each token's settlement cost per receipt: a transfer of
// one base unit (the gas wallet to itself stands in for a deposit address to a
// merchant) plus the gas top-up, at price wei per gas. Where the node will not
// estimate one of them (a standard ERC-20 reverts the transfer while the gas
// wallet holds none of the token; nothing on the wallet to send) it counts the
// usual gas of its kind, so a token is never shown as free to settle.
func (s *Sender) sweepCosts(ctx context.Context, gas string, price *big.Int) map[int64]*big.Int {
	out := map[int64]*big.Int{}
	topup, err := s.Account.EstimateGas(ctx, Call{From: gas, To: gas})
	if err != nil {
		topup = usualGas[true]
	}
	for _, t := range s.Tokens {
		units, err := s.Account.EstimateGas(ctx, transferCall(t, &outbox.Payout{From: gas, To: gas, Amount: big.NewInt(1)}))
		if err != nil {
			units = usualGas[t.Type == kassa.TokenNative]
		}
		out[t.ID] = new(big.Int).Mul(new(big.Int).SetUint64(units+topup), price)
	}
	return out
}

// usualGas is the gas assumed for a transfer the node will not estimate (a
// standard ERC-20 reverts a transfer from an address that holds none of it), by
// whether it is the network's coin: 21,000 for the coin, and for an ERC-20
// 65,000 (the figure payment software such as OxygenPay hard-codes), above
// what OpenZeppelin's ERC-20 spends on a transfer to an address with no balance
// yet (51,444, TestDeployOnDevChain in devchain/oztoken).
var usualGas = map[bool]uint64{true: 21_000, false: 65_000}

// nativeDecimals is the decimals of every EVM network's coin.
const nativeDecimals = 18

// Warning says what is wrong when the wallet is short, for `kassa wallet` and
// /readyz; "" when it can pay for everything waiting.
func (r *GasReport) Warning() string {
	if r == nil || !r.Short {
		return ""
	}
	w := fmt.Sprintf("gas wallet %s on %s (%s) holds %s %s; the %d waiting payouts need up to %s %s",
		r.Address, r.Network, r.Environment, kassa.FormatUnits(r.Balance, nativeDecimals), r.Native,
		r.Waiting, kassa.FormatUnits(r.Need, nativeDecimals), r.Native)
	syms := make([]string, 0, len(r.TokenNeed))
	for sym := range r.TokenNeed {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	for _, sym := range syms {
		have := r.Tokens[sym]
		if have == nil {
			have = new(big.Int)
		}
		w += fmt.Sprintf(", and %s of %s in refunds (it holds %s)", r.TokenNeed[sym], sym, have)
	}
	return w + ": they wait until it is funded"
}

// Warnings returns the warning of every sender's last gas report, sorted.
func (ss *Senders) Warnings() []string {
	var out []string
	for _, s := range ss.All() {
		if w := s.LastGasReport().Warning(); w != "" {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}
