package main

import (
	"fmt"
	"log/slog"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
)

// gasSender is a Sender and its gas wallet's address.
type gasSender struct {
	*chain.Sender
	gas string
}

// newGasSender builds network n's sender of payouts over pool with the
// environment's keys: what serve runs and what `kassa wallet` asks for its gas
// report. pool may be nil for the address alone.
func newGasSender(n kassa.Network, tokens []kassa.Token, pool *chain.Pool, db *store.DB,
	wallet payment.AddressDeriver, holder string, log *slog.Logger) (*gasSender, error) {
	keys, ok := wallet.(chain.KeyRing)
	if !ok {
		return nil, fmt.Errorf("network %s: no signing keys for %s", n.Name, n.Environment)
	}
	s := &chain.Sender{Network: n, Tokens: tokens, Store: db, Keys: keys, Leaser: db, Holder: holder, Log: log}
	if pool != nil {
		s.Chain, s.Account = pool.Node(), pool.Account()
	}
	gas, err := s.GasAddress()
	if err != nil {
		return nil, err
	}
	return &gasSender{s, gas}, nil
}

// rpcURLs returns the JSON-RPC endpoints of every network that has some, keyed
// key(env, network): the registry's rpc_urls, replaced by --rpc.
func rpcURLs(reg kassa.Registry, rpc rpcFlag) (map[string][]string, error) {
	urls := map[string][]string{}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, n := range reg.Networks(env) {
			if len(n.RPCURLs) > 0 {
				urls[key(env, n.Name)] = n.RPCURLs
			}
		}
	}
	for name, list := range rpc {
		found := false
		for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
			if _, ok := reg.Network(env, name); ok {
				urls[key(env, name)], found = list, true
			}
		}
		if !found {
			return nil, fmt.Errorf("--rpc: no network %q in the registry", name)
		}
	}
	return urls, nil
}

// networkTokens returns the registry's tokens on n.
func networkTokens(reg kassa.Registry, n kassa.Network) []kassa.Token {
	var out []kassa.Token
	for _, t := range reg.Tokens(n.Environment) {
		if t.Network == n.Name {
			out = append(out, t)
		}
	}
	return out
}
