package payment

import (
	"context"
	"slices"

	"github.com/kassapay/kassa"
)

var _ kassa.RateSource = (*Service)(nil)

// Watched reports whether Kassa watches network of env: it has an RPC endpoint,
// so payments on it are found on chain (decisions.md, "Chains").
func (s *Service) Watched(env kassa.Environment, network string) bool {
	return s.Chain != nil && s.Chain.Watched(env, network)
}

// Rate prices t for a payor: its current rate, or why it cannot be paid now. A
// mainnet token on a network Kassa does not watch cannot: nobody would see the
// payment (409 network_unwatched). Devnet networks without a watcher keep the
// devnet payments endpoint. The available tokens, the payment page and quotes all
// price through it, so they agree.
func (s *Service) Rate(ctx context.Context, t kassa.Token) (kassa.Rate, error) {
	if t.Environment == kassa.Mainnet && !s.Watched(t.Environment, t.Network) {
		return kassa.Rate{}, kassa.Errorf(kassa.KindConflict, "network_unwatched",
			"Payments on %s cannot be detected: no RPC endpoint is configured for it.", t.Network)
	}
	if s.Rates == nil {
		return kassa.Rate{}, kassa.Errorf(kassa.KindConflict, "rate_unavailable", "No rate is available for %s on %s.", t.Symbol, t.Network)
	}
	return s.Rates.Rate(ctx, t)
}

// errNetworkWatched refuses a simulated payment on a network Kassa watches.
func errNetworkWatched(network string) error {
	return kassa.Invalidf("token_id", "network_watched",
		"Kassa watches %s: send a real transaction (for example with `kassa pay`) instead of simulating one.", network)
}

// WatchedFirst orders tokens for a payor: those on networks Kassa watches first
// (with --dev, the dev chain's), each group in the registry's order. Both the
// payment page and the payor API's available tokens list them so. A nil Service
// watches nothing and keeps the order.
func (s *Service) WatchedFirst(tokens []kassa.Token) []kassa.Token {
	out := slices.Clone(tokens)
	if s == nil {
		return out
	}
	rank := func(t kassa.Token) int {
		if s.Watched(t.Environment, t.Network) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b kassa.Token) int { return rank(a) - rank(b) })
	return out
}
