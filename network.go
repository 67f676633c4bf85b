package kassa

import (
	"context"
	"math/big"
	"time"
)

// Network is an EVM chain Kassa watches in one environment.
type Network struct {
	Name          string      `json:"name"`         // stable id used in the API, e.g. "bsc-testnet"
	DisplayName   string      `json:"display_name"` // what a payor reads, e.g. "BNB Smart Chain Testnet"
	Environment   Environment `json:"environment"`
	ChainID       int64       `json:"chain_id"`      // EIP-155 chain id
	Confirmations int         `json:"confirmations"` // blocks before a payment counts as confirmed
	ExplorerURL   string      `json:"explorer_url"`  // base URL; a transaction is ExplorerURL + "/tx/" + hash; "" for none
	NativeSymbol  string      `json:"native_symbol"` // the chain's coin, e.g. "tBNB"
	// DerivationIndex is the hardened account of this network in the deposit address
	// path m/44'/60'/DerivationIndex'/0/n: every network gets its own addresses. It
	// must never change once addresses were handed out.
	DerivationIndex uint32 `json:"derivation_index"`
	// BlockTimeMillis is the chain's usual time between blocks: the watcher reads
	// the head that often. 0 means 2 s.
	BlockTimeMillis int64 `json:"block_time_ms,omitempty"`
	// RPCURLs are JSON-RPC endpoints of the chain, in order of preference: a
	// network with one is watched. `serve --rpc` sets them too.
	RPCURLs []string `json:"rpc_urls,omitempty"`
	// WSURL is a WebSocket JSON-RPC endpoint (ws or wss) of the chain, optional:
	// the watcher subscribes to its newHeads and steps on each new block, still
	// polling every BlockTime when the subscription is down.
	WSURL string `json:"ws_url,omitempty"`
}

// BlockTime is the chain's usual time between blocks (2 s when not set).
func (n Network) BlockTime() time.Duration {
	if n.BlockTimeMillis <= 0 {
		return 2 * time.Second
	}
	return time.Duration(n.BlockTimeMillis) * time.Millisecond
}

// Token types.
const (
	TokenERC20  = "erc20"
	TokenNative = "native"
)

// Token is a coin or ERC-20 contract a payor may pay with.
type Token struct {
	ID          int64       `json:"id"` // stable integer id (the available-tokens id)
	Environment Environment `json:"environment"`
	Network     string      `json:"network"`
	Symbol      string      `json:"symbol"`
	Name        string      `json:"name"`
	Type        string      `json:"type"`    // TokenERC20 or TokenNative
	Address     string      `json:"address"` // ERC-20 contract; "" for the native coin
	Decimals    int         `json:"decimals"`
	IconURI     string      `json:"icon_uri"`
	// Stable marks a USD stablecoin: quoted 1:1 with the dollar by default.
	Stable bool `json:"stable"`
	// SettlementRoute says Kassa can settle this token to merchants; without it a
	// receipt's settlement is manual.
	SettlementRoute bool `json:"settlement_route"`
	Monitored       bool `json:"monitored"` // the chain watcher looks for it
}

// Registry lists the networks and tokens of each environment.
type Registry interface {
	Networks(env Environment) []Network
	Network(env Environment, name string) (Network, bool)
	Tokens(env Environment) []Token
	Token(env Environment, id int64) (Token, bool)
}

// Rate is the price of one whole token in US dollars, as an exact rational number
// (never a float), and when the source last updated it.
type Rate struct {
	USDPerToken *big.Rat
	UpdatedAt   time.Time
}

// RateSource quotes tokens in US dollars.
type RateSource interface {
	// Rate returns the current rate of a token; a token the source cannot price
	// gives a KindConflict error with code rate_unavailable.
	Rate(ctx context.Context, t Token) (Rate, error)
}

// rateHistory is a RateSource that remembers the rates it gave (rates.Live).
type rateHistory interface {
	// RateAt returns the rate of t as the source knew it at time at: the last
	// one it had at or before at. Errors as Rate's.
	RateAt(ctx context.Context, t Token, at time.Time) (Rate, error)
}

// RateAt returns src's rate of t at time at when src remembers its rates (it
// has a RateAt method, as rates.Live has), else its current rate.
func RateAt(ctx context.Context, src RateSource, t Token, at time.Time) (Rate, error) {
	if h, ok := src.(rateHistory); ok {
		return h.RateAt(ctx, t, at)
	}
	return src.Rate(ctx, t)
}

// TokenUnits returns ceil(amount / 1000 / usdPerToken × 10^decimals): the smallest
// token amount, in base units, worth at least amount usd_millis, computed exactly.
// Rounding up means the merchant is never short. usdPerToken must be positive and
// decimals non-negative.
func TokenUnits(amount Millis, decimals int, usdPerToken *big.Rat) *big.Int {
	// amount/1000 / (p/q) × 10^d = amount × q × 10^d / (1000 × p)
	num := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	num.Mul(num, big.NewInt(int64(amount)))
	num.Mul(num, usdPerToken.Denom())
	den := new(big.Int).Mul(big.NewInt(1000), usdPerToken.Num())
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
