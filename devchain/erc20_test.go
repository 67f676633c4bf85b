package devchain_test

import (
	"bytes"
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/kassapay/kassa/devchain"
)

func TestTokenMetadata(t *testing.T) {
	c := startChain(t, "", 0)
	for _, tok := range devchain.Tokens() {
		t.Run(tok.Symbol, func(t *testing.T) {
			a := common.HexToAddress(tok.Address)
			if got := c.call(a, "name"); got != tok.Name {
				t.Errorf("name() = %q, want %q", got, tok.Name)
			}
			if got := c.call(a, "symbol"); got != tok.Symbol {
				t.Errorf("symbol() = %q, want %q", got, tok.Symbol)
			}
			if got := c.call(a, "decimals"); got != uint8(6) {
				t.Errorf("decimals() = %v, want 6", got)
			}
			if got := c.call(a, "totalSupply").(*big.Int); got.Cmp(units(10_000_000)) != 0 {
				t.Errorf("totalSupply() = %v, want 10 × 1,000,000e6", got)
			}
		})
	}
}

// wantLog checks that r has exactly one log, of token, with topics [topic, a, b]
// and data value.
func wantLog(t *testing.T, r *types.Receipt, token common.Address, topic common.Hash, a, b common.Address, value *big.Int) {
	t.Helper()
	if len(r.Logs) != 1 {
		t.Fatalf("%d logs, want 1", len(r.Logs))
	}
	l := r.Logs[0]
	want := []common.Hash{topic, common.BytesToHash(a.Bytes()), common.BytesToHash(b.Bytes())}
	if l.Address != token || len(l.Topics) != 3 || l.Topics[0] != want[0] || l.Topics[1] != want[1] || l.Topics[2] != want[2] {
		t.Errorf("log of %s with topics %v, want %s %v", l.Address, l.Topics, token, want)
	}
	if !bytes.Equal(l.Data, common.BigToHash(value).Bytes()) {
		t.Errorf("log data %x, want %v", l.Data, value)
	}
}

func TestTokenTransfer(t *testing.T) {
	c := startChain(t, "", 0)
	tests := []struct {
		name   string
		from   int
		self   bool // to the sender, else to a fresh address
		token  common.Address
		amount func(balance *big.Int) *big.Int
		ok     bool
	}{
		{"to a fresh address", 1, false, usdt, func(*big.Int) *big.Int { return big.NewInt(12_345_678) }, true},
		{"of USDC", 1, false, usdc, func(*big.Int) *big.Int { return units(250) }, true},
		{"to self", 2, true, usdt, func(*big.Int) *big.Int { return units(5) }, true},
		{"of nothing", 2, false, usdt, func(*big.Int) *big.Int { return new(big.Int) }, true},
		{"of the whole balance", 3, false, usdc, func(b *big.Int) *big.Int { return b }, true},
		{"of more than the balance", 4, false, usdt, func(b *big.Int) *big.Int { return new(big.Int).Add(b, big.NewInt(1)) }, false},
		{"of more than the balance to self", 4, true, usdt, func(b *big.Int) *big.Int { return new(big.Int).Add(b, big.NewInt(1)) }, false},
		{"from an empty balance", 3, false, usdc, func(*big.Int) *big.Int { return big.NewInt(1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := account(tt.from), freshAddress(t)
			if tt.self {
				to = from
			}
			fromBefore, toBefore := c.tokenBalance(tt.token, from), c.tokenBalance(tt.token, to)
			amount := tt.amount(fromBefore)
			_, callErr := c.client.CallContract(context.Background(),
				ethereum.CallMsg{From: from, To: &tt.token, Data: pack(t, "transfer", to, amount)}, nil)
			if (callErr == nil) != tt.ok {
				t.Errorf("eth_call: %v", callErr)
			}
			r := c.receipt(c.sendToken(tt.from, tt.token, "transfer", to, amount))
			fromAfter, toAfter := c.tokenBalance(tt.token, from), c.tokenBalance(tt.token, to)
			if !tt.ok {
				if r.Status != types.ReceiptStatusFailed || len(r.Logs) != 0 {
					t.Errorf("status %d with %d logs, want a revert", r.Status, len(r.Logs))
				}
				if fromAfter.Cmp(fromBefore) != 0 || toAfter.Cmp(toBefore) != 0 {
					t.Errorf("balances moved: %v → %v, %v → %v", fromBefore, fromAfter, toBefore, toAfter)
				}
				return
			}
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("status %d", r.Status)
			}
			wantLog(t, r, tt.token, transferTopic, from, to, amount)
			wantFrom, wantTo := new(big.Int).Sub(fromBefore, amount), new(big.Int).Add(toBefore, amount)
			if tt.self {
				wantFrom, wantTo = fromBefore, toBefore
			}
			if fromAfter.Cmp(wantFrom) != 0 || toAfter.Cmp(wantTo) != 0 {
				t.Errorf("balances %v and %v, want %v and %v", fromAfter, toAfter, wantFrom, wantTo)
			}
		})
	}
}

func TestTokenApproveAndTransferFrom(t *testing.T) {
	c := startChain(t, "", 0)
	owner, spender, to := account(5), account(6), freshAddress(t)
	balance := c.tokenBalance(usdt, owner)
	steps := []struct {
		name      string
		from      int
		method    string
		args      []any
		ok        bool
		moved     *big.Int // from owner to to
		allowance *big.Int // of spender over owner's tokens, after
	}{
		{"approve", 5, "approve", []any{spender, units(100)}, true, new(big.Int), units(100)},
		{"transferFrom within the allowance", 6, "transferFrom", []any{owner, to, units(40)}, true, units(40), units(60)},
		{"transferFrom over the allowance", 6, "transferFrom", []any{owner, to, big.NewInt(60_000_001)}, false, new(big.Int), units(60)},
		{"transferFrom without an allowance", 7, "transferFrom", []any{owner, to, big.NewInt(1)}, false, new(big.Int), units(60)},
		{"transferFrom the rest of the allowance", 6, "transferFrom", []any{owner, to, units(60)}, true, units(60), new(big.Int)},
		{"approve more than the balance", 5, "approve", []any{spender, units(5_000_000)}, true, new(big.Int), units(5_000_000)},
		{"transferFrom over the balance", 6, "transferFrom", []any{owner, to, new(big.Int).Sub(balance, units(99))}, false, new(big.Int), units(5_000_000)},
		{"approve nothing", 5, "approve", []any{spender, new(big.Int)}, true, new(big.Int), new(big.Int)},
	}
	moved := new(big.Int)
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			spenderBefore := c.tokenBalance(usdt, spender)
			r := c.receipt(c.sendToken(s.from, usdt, s.method, s.args...))
			switch {
			case !s.ok:
				if r.Status != types.ReceiptStatusFailed || len(r.Logs) != 0 {
					t.Errorf("status %d with %d logs, want a revert", r.Status, len(r.Logs))
				}
			case r.Status != types.ReceiptStatusSuccessful:
				t.Errorf("status %d", r.Status)
			case s.method == "approve":
				wantLog(t, r, usdt, approvalTopic, owner, spender, s.args[1].(*big.Int))
			default:
				wantLog(t, r, usdt, transferTopic, owner, to, s.args[2].(*big.Int))
			}
			moved.Add(moved, s.moved)
			if got := c.call(usdt, "allowance", owner, spender).(*big.Int); got.Cmp(s.allowance) != 0 {
				t.Errorf("allowance %v, want %v", got, s.allowance)
			}
			if got := c.call(usdt, "allowance", spender, owner).(*big.Int); got.Sign() != 0 {
				t.Errorf("reverse allowance %v, want 0", got)
			}
			if got, want := c.tokenBalance(usdt, owner), new(big.Int).Sub(balance, moved); got.Cmp(want) != 0 {
				t.Errorf("owner's balance %v, want %v", got, want)
			}
			if got := c.tokenBalance(usdt, to); got.Cmp(moved) != 0 {
				t.Errorf("recipient's balance %v, want %v", got, moved)
			}
			if got := c.tokenBalance(usdt, spender); got.Cmp(spenderBefore) != 0 {
				t.Errorf("spender's balance moved: %v → %v", spenderBefore, got)
			}
		})
	}
}

func TestTokenRejectsBadCalls(t *testing.T) {
	c := startChain(t, "", 0)
	balanceOf := pack(t, "balanceOf", account(0))
	tests := []struct {
		name  string
		data  []byte
		value int64
	}{
		{"unknown selector", append([]byte{0xde, 0xad, 0xbe, 0xef}, balanceOf[4:]...), 0},
		{"value with balanceOf", balanceOf, 1},
		{"value with transfer", pack(t, "transfer", account(1), big.NewInt(1)), 1},
		{"three bytes of calldata", balanceOf[:3], 0},
		{"no calldata", nil, 0},
		{"no calldata with value", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.client.CallContract(context.Background(),
				ethereum.CallMsg{From: account(0), To: &usdt, Data: tt.data, Value: big.NewInt(tt.value)}, nil)
			if err == nil || !strings.Contains(err.Error(), "revert") {
				t.Errorf("eth_call = %x, %v; want a revert", out, err)
			}
		})
	}
}

// TestTransferGas checks that a token transfer costs what it does on mainnet
// today: under go-ethereum's dev config's future fork it would cost about 147k.
func TestTransferGas(t *testing.T) {
	c := startChain(t, "", 0)
	to := freshAddress(t)
	data := pack(t, "transfer", to, units(1))
	gas, err := c.client.EstimateGas(context.Background(), ethereum.CallMsg{From: account(0), To: &usdt, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("eth_estimateGas of a USDT transfer to a fresh address: %d", gas)
	if gas <= 21_000 || gas >= 100_000 {
		t.Errorf("estimate %d, want between 21,000 and 100,000", gas)
	}
	r := c.receipt(c.send(0, usdt, new(big.Int), data, gas))
	t.Logf("gas used: %d", r.GasUsed)
	if r.Status != types.ReceiptStatusSuccessful || r.GasUsed > gas {
		t.Errorf("status %d, gas used %d of %d", r.Status, r.GasUsed, gas)
	}
}
