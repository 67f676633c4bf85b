package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Account is what the sender asks a node about Kassa's own addresses: nonces,
// balances, gas and fees, and the broadcast of signed transactions. RPC
// implements it; Pool.Account runs it with failover.
type Account interface {
	// Nonce returns the transactions addr has sent: mined ones ("latest"), or
	// with those waiting in the node's pool too ("pending").
	Nonce(ctx context.Context, addr string, pending bool) (uint64, error)
	// Balance returns addr's native balance in wei at the latest block.
	Balance(ctx context.Context, addr string) (*big.Int, error)
	// TokenBalance returns addr's balance of the ERC-20 token (balanceOf).
	TokenBalance(ctx context.Context, token, addr string) (*big.Int, error)
	// EstimateGas returns the gas the call needs (eth_estimateGas).
	EstimateGas(ctx context.Context, c Call) (uint64, error)
	// Fees returns the tip the node suggests (eth_maxPriorityFeePerGas) and the
	// latest block's base fee.
	Fees(ctx context.Context) (tip, baseFee *big.Int, err error)
	// SendRaw broadcasts a signed transaction. A node that already has it is a
	// success; ErrNonceTooLow, ErrInsufficientFunds and ErrUnderpriced name the
	// refusals the sender handles.
	SendRaw(ctx context.Context, raw []byte) error
}

// Call is a transaction to estimate.
type Call struct {
	From, To string
	Value    *big.Int
	Data     []byte
}

// Refusals of a broadcast.
var (
	ErrNonceTooLow       = errors.New("chain: nonce too low")
	ErrInsufficientFunds = errors.New("chain: insufficient funds for gas * price + value")
	ErrUnderpriced       = errors.New("chain: replacement transaction underpriced")
)

var _ Account = (*RPC)(nil)

// Nonce returns addr's transaction count (eth_getTransactionCount).
func (r *RPC) Nonce(ctx context.Context, addr string, pending bool) (uint64, error) {
	tag := "latest"
	if pending {
		tag = "pending"
	}
	var n *hexutil.Uint64
	if err := r.call(ctx, &n, "eth_getTransactionCount", common.HexToAddress(addr), tag); err != nil {
		return 0, err
	}
	if n == nil {
		return 0, r.garbage("eth_getTransactionCount", "no count")
	}
	return uint64(*n), nil
}

// Balance returns addr's balance in wei (eth_getBalance).
func (r *RPC) Balance(ctx context.Context, addr string) (*big.Int, error) {
	var b *hexutil.Big
	if err := r.call(ctx, &b, "eth_getBalance", common.HexToAddress(addr), "latest"); err != nil {
		return nil, err
	}
	if b == nil || b.ToInt().Sign() < 0 {
		return nil, r.garbage("eth_getBalance", "balance %v", b)
	}
	return new(big.Int).Set(b.ToInt()), nil
}

// balanceOfSelector is the ERC-20 balanceOf(address) selector.
var balanceOfSelector = []byte{0x70, 0xa0, 0x82, 0x31}

// TokenBalance returns addr's balance of token (eth_call balanceOf).
func (r *RPC) TokenBalance(ctx context.Context, token, addr string) (*big.Int, error) {
	data := append(append([]byte{}, balanceOfSelector...), common.LeftPadBytes(common.HexToAddress(addr).Bytes(), 32)...)
	var out hexutil.Bytes
	arg := map[string]any{"to": common.HexToAddress(token), "data": hexutil.Bytes(data)}
	if err := r.call(ctx, &out, "eth_call", arg, "latest"); err != nil {
		return nil, err
	}
	if len(out) != 32 {
		return nil, r.garbage("eth_call", "balanceOf answered %d bytes", len(out))
	}
	return new(big.Int).SetBytes(out), nil
}

// EstimateGas returns the gas c needs (eth_estimateGas).
func (r *RPC) EstimateGas(ctx context.Context, c Call) (uint64, error) {
	arg := map[string]any{"from": common.HexToAddress(c.From), "to": common.HexToAddress(c.To)}
	if c.Value != nil && c.Value.Sign() > 0 {
		arg["value"] = (*hexutil.Big)(c.Value)
	}
	if len(c.Data) > 0 {
		arg["data"] = hexutil.Bytes(c.Data)
	}
	var g *hexutil.Uint64
	if err := r.call(ctx, &g, "eth_estimateGas", arg); err != nil {
		return 0, err
	}
	if g == nil || *g < 21000 {
		return 0, r.garbage("eth_estimateGas", "gas %v", g)
	}
	return uint64(*g), nil
}

// Fees returns the suggested tip and the latest base fee.
func (r *RPC) Fees(ctx context.Context) (*big.Int, *big.Int, error) {
	var tip *hexutil.Big
	if err := r.call(ctx, &tip, "eth_maxPriorityFeePerGas"); err != nil {
		return nil, nil, err
	}
	var h struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	if err := r.call(ctx, &h, "eth_getBlockByNumber", "latest", false); err != nil {
		return nil, nil, err
	}
	if tip == nil || tip.ToInt().Sign() < 0 || h.BaseFee == nil || h.BaseFee.ToInt().Sign() < 0 {
		return nil, nil, r.garbage("eth_maxPriorityFeePerGas", "tip %v, base fee %v", tip, h.BaseFee)
	}
	return new(big.Int).Set(tip.ToInt()), new(big.Int).Set(h.BaseFee.ToInt()), nil
}

// SendRaw broadcasts raw (eth_sendRawTransaction).
func (r *RPC) SendRaw(ctx context.Context, raw []byte) error {
	var hash *common.Hash
	err := r.call(ctx, &hash, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if err == nil || IsEndpointFault(err) {
		return err
	}
	return broadcastError(err)
}

// broadcastError names the refusals of eth_sendRawTransaction by geth's (and
// most clients') messages.
func broadcastError(err error) error {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "already known"), strings.Contains(msg, "known transaction"),
		strings.Contains(msg, "already imported"):
		return nil
	case strings.Contains(msg, "nonce too low"):
		return fmt.Errorf("%w: %v", ErrNonceTooLow, err)
	case strings.Contains(msg, "insufficient funds"):
		return fmt.Errorf("%w: %v", ErrInsufficientFunds, err)
	case strings.Contains(msg, "underpriced"):
		return fmt.Errorf("%w: %v", ErrUnderpriced, err)
	}
	return err
}

// Account returns an Account whose calls run with failover (Pool.Step).
func (p *Pool) Account() Account { return poolAccount{p} }

type poolAccount struct{ p *Pool }

func (a poolAccount) Nonce(ctx context.Context, addr string, pending bool) (n uint64, err error) {
	err = a.p.Step(ctx, func(nd Node) error { n, err = nd.(Account).Nonce(ctx, addr, pending); return err })
	return n, err
}

func (a poolAccount) Balance(ctx context.Context, addr string) (b *big.Int, err error) {
	err = a.p.Step(ctx, func(nd Node) error { b, err = nd.(Account).Balance(ctx, addr); return err })
	return b, err
}

func (a poolAccount) TokenBalance(ctx context.Context, token, addr string) (b *big.Int, err error) {
	err = a.p.Step(ctx, func(nd Node) error { b, err = nd.(Account).TokenBalance(ctx, token, addr); return err })
	return b, err
}

func (a poolAccount) EstimateGas(ctx context.Context, c Call) (g uint64, err error) {
	err = a.p.Step(ctx, func(nd Node) error { g, err = nd.(Account).EstimateGas(ctx, c); return err })
	return g, err
}

func (a poolAccount) Fees(ctx context.Context) (tip, base *big.Int, err error) {
	err = a.p.Step(ctx, func(nd Node) error { tip, base, err = nd.(Account).Fees(ctx); return err })
	return tip, base, err
}

func (a poolAccount) SendRaw(ctx context.Context, raw []byte) error {
	return a.p.Step(ctx, func(nd Node) error { return nd.(Account).SendRaw(ctx, raw) })
}
