package payment

import (
	"context"
	"math/big"

	"github.com/kassapay/kassa"
)

// SweepCoster knows what settling one receipt costs in gas on a watched
// network, in wei of its coin (chain.Senders).
type SweepCoster interface {
	SweepCost(env kassa.Environment, network string, tokenID int64) (*big.Int, bool)
}

// SettlementCost estimates in US dollars what settling one receipt of t costs the
// operator in gas (the settlement_cost_usd of the available tokens): the gas
// top-up and the transfer at today's fees, priced at the network coin's rate.
// False when it is not known: an unwatched network, no estimate yet, or no rate
// for the coin.
func (s *Service) SettlementCost(ctx context.Context, t kassa.Token) (*big.Rat, bool) {
	if s.Costs == nil || s.Registry == nil || s.Rates == nil {
		return nil, false
	}
	wei, ok := s.Costs.SweepCost(t.Environment, t.Network, t.ID)
	if !ok {
		return nil, false
	}
	for _, coin := range s.Registry.Tokens(t.Environment) {
		if coin.Network != t.Network || coin.Type != kassa.TokenNative {
			continue
		}
		rate, err := s.Rates.Rate(ctx, coin)
		if err != nil {
			return nil, false
		}
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(coin.Decimals)), nil)
		usd := new(big.Rat).SetFrac(wei, scale)
		return usd.Mul(usd, rate.USDPerToken), true
	}
	return nil, false
}
