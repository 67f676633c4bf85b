// Package registry holds the networks and tokens Kassa accepts in each environment
// (kassa.Registry) and the static rate source that prices those tokens in US
// dollars (kassa.RateSource). Quotes are made by package payment.
//
// # The registry file
//
// A registry is one JSON object with two arrays, the same shape as the embedded
// default (registry.json in this package):
//
//	{
//	  "networks": [
//	    {"name": "bsc-testnet", "display_name": "BNB Smart Chain Testnet",
//	     "environment": "devnet", "chain_id": 97, "confirmations": 3,
//	     "explorer_url": "https://testnet.bscscan.com", "native_symbol": "tBNB",
//	     "derivation_index": 0}
//	  ],
//	  "tokens": [
//	    {"id": 1, "environment": "devnet", "network": "bsc-testnet",
//	     "symbol": "USDT", "name": "Tether USD (BSC Testnet)", "type": "erc20",
//	     "address": "0x337610d27c682E347C9cD60BD4b3b107C9d34dDd", "decimals": 18,
//	     "icon_uri": "/static/tokens/usdt.svg", "stable": true,
//	     "settlement_route": true, "monitored": true}
//	  ]
//	}
//
// Field meanings are those of kassa.Network and kassa.Token. Unknown fields are an
// error, so a misspelt key never silently falls back to a zero value. A file given
// to Load replaces the embedded default entirely; it is not merged with it.
//
// Load checks every entry and names the offending one in its error:
//   - the file has at least one network;
//   - environment is "devnet" or "mainnet";
//   - a network name is lower-case letters, digits and single hyphens, unique in
//     its environment; display_name and native_symbol are set; chain_id > 0 and
//     unique in the environment; confirmations >= 1; explorer_url is "" (no
//     explorer, as on a dev chain) or an absolute http(s) URL without a trailing
//     slash, query or fragment; block_time_ms is not negative; rpc_urls are
//     absolute http(s) URLs; derivation_index is unique in the environment;
//   - a token id is > 0 and unique across all environments; its network exists in
//     its environment; symbol and name are set; type is "erc20" or "native";
//     an erc20 token has an EVM address (EIP-55 checksummed when in mixed case),
//     unique on its network, and a native token has address "" and the network's
//     native_symbol; symbols are unique per network (so one native per network);
//     decimals is 0..36; icon_uri, when set, is a root-relative path or an
//     absolute http(s) URL.
//
// Addresses are stored in EIP-55 form whatever case the file used.
package registry

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/kassapay/kassa"
)

//go:embed registry.json
var defaultRegistry []byte

// MaxDecimals is the largest number of token decimals the registry accepts.
const MaxDecimals = 36

// File is the JSON shape of a registry file (see the package documentation).
type File struct {
	Networks []kassa.Network `json:"networks"`
	Tokens   []kassa.Token   `json:"tokens"`
}

// Registry is a validated, read-only set of networks and tokens. It implements
// kassa.Registry and is safe for concurrent use.
type Registry struct {
	networks map[kassa.Environment][]kassa.Network // sorted by name
	tokens   map[kassa.Environment][]kassa.Token   // sorted by id
}

var _ kassa.Registry = (*Registry)(nil)

// Load returns the embedded default registry when path is "", and otherwise the
// registry read from the JSON file at path, which replaces the default entirely.
func Load(path string) (*Registry, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Default returns the embedded default registry. It panics if the embedded file is
// invalid, which the package's tests rule out.
func Default() *Registry {
	r, err := Parse(defaultRegistry)
	if err != nil {
		panic(err)
	}
	return r
}

// Parse reads and validates a registry from the JSON text of a registry file.
func Parse(data []byte) (*Registry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("registry: malformed JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("registry: malformed JSON: data after the top-level object")
	}
	return New(f)
}

// New validates f and builds a registry from it. f is neither modified nor retained.
func New(f File) (*Registry, error) {
	f.Networks, f.Tokens = slices.Clone(f.Networks), slices.Clone(f.Tokens)
	if err := validate(&f); err != nil {
		return nil, err
	}
	r := &Registry{
		networks: map[kassa.Environment][]kassa.Network{},
		tokens:   map[kassa.Environment][]kassa.Token{},
	}
	for _, n := range f.Networks {
		r.networks[n.Environment] = append(r.networks[n.Environment], n)
	}
	for _, t := range f.Tokens {
		r.tokens[t.Environment] = append(r.tokens[t.Environment], t)
	}
	for _, ns := range r.networks {
		slices.SortFunc(ns, func(a, b kassa.Network) int { return strings.Compare(a.Name, b.Name) })
	}
	for _, ts := range r.tokens {
		slices.SortFunc(ts, func(a, b kassa.Token) int { return cmp.Compare(a.ID, b.ID) })
	}
	return r, nil
}

// Networks returns the networks of env sorted by name; the slice is the caller's.
func (r *Registry) Networks(env kassa.Environment) []kassa.Network {
	return slices.Clone(r.networks[env])
}

// Network returns the network of env called name.
func (r *Registry) Network(env kassa.Environment, name string) (kassa.Network, bool) {
	for _, n := range r.networks[env] {
		if n.Name == name {
			return n, true
		}
	}
	return kassa.Network{}, false
}

// Tokens returns the tokens of env sorted by id; the slice is the caller's.
func (r *Registry) Tokens(env kassa.Environment) []kassa.Token {
	return slices.Clone(r.tokens[env])
}

// Token returns the token of env with the given id. A token of the other
// environment is not found.
func (r *Registry) Token(env kassa.Environment, id int64) (kassa.Token, bool) {
	ts := r.tokens[env]
	i, ok := slices.BinarySearchFunc(ts, id, func(t kassa.Token, id int64) int { return cmp.Compare(t.ID, id) })
	if !ok {
		return kassa.Token{}, false
	}
	return ts[i], true
}
