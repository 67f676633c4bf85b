package devchain

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

// Funding of an address from the last dev account (account 9, so account 0's
// nonces stay the payor's): FundEther ETH and FundTokens of each token.
var (
	FundEther  = new(big.Int).Mul(big.NewInt(1_000), big.NewInt(params.Ether))
	FundTokens = big.NewInt(100_000 * 1_000_000)
)

// Fund sends FundEther and FundTokens of each token to addr unless it already
// holds at least a tenth of FundEther, and waits until the transfers are mined.
// It reports whether it sent anything. Kassa's gas wallet on the dev chain is
// funded this way at start.
func (c *Chain) Fund(ctx context.Context, addr string) (bool, error) {
	if !common.IsHexAddress(addr) {
		return false, fmt.Errorf("devchain: fund: %q is not an address", addr)
	}
	cl, err := ethclient.DialContext(ctx, c.URL())
	if err != nil {
		return false, err
	}
	defer cl.Close()
	to := common.HexToAddress(addr)
	bal, err := cl.BalanceAt(ctx, to, nil)
	if err != nil {
		return false, fmt.Errorf("devchain: fund: %w", err)
	}
	if bal.Cmp(new(big.Int).Quo(FundEther, big.NewInt(10))) >= 0 {
		return false, nil
	}
	key, err := crypto.HexToECDSA(accounts[len(accounts)-1].PrivateKey)
	if err != nil {
		return false, err
	}
	// One Fund at a time, its nonces counted here: the pool's pending nonce
	// can lag a block just mined, and reusing it is "nonce too low".
	c.fundMu.Lock()
	defer c.fundMu.Unlock()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		return false, fmt.Errorf("devchain: fund: %w", err)
	}
	if mined, err := cl.NonceAt(ctx, from, nil); err != nil {
		return false, fmt.Errorf("devchain: fund: %w", err)
	} else if mined > nonce {
		nonce = mined
	}
	var last *types.Transaction
	send := func(dest common.Address, value *big.Int, data []byte) error {
		gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &dest, Value: value, Data: data})
		if err != nil {
			return err
		}
		tip, err := cl.SuggestGasTipCap(ctx)
		if err != nil {
			return err
		}
		head, err := cl.HeaderByNumber(ctx, nil)
		if err != nil {
			return err
		}
		if c.cfg.MinTip != nil && tip.Cmp(c.cfg.MinTip) < 0 {
			tip = new(big.Int).Set(c.cfg.MinTip)
		}
		feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		id := big.NewInt(ChainID)
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
			GasFeeCap: feeCap, Gas: gas, To: &dest, Value: value, Data: data}), types.LatestSignerForChainID(id), key)
		if err != nil {
			return err
		}
		last = tx
		nonce++
		return cl.SendTransaction(ctx, tx)
	}
	if err := send(to, FundEther, nil); err != nil {
		return false, fmt.Errorf("devchain: fund %s with ETH: %w", addr, err)
	}
	for _, t := range Tokens() {
		data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(to.Bytes(), 32)...)
		data = append(data, common.LeftPadBytes(FundTokens.Bytes(), 32)...)
		if err := send(common.HexToAddress(t.Address), new(big.Int), data); err != nil {
			return false, fmt.Errorf("devchain: fund %s with %s: %w", addr, t.Symbol, err)
		}
	}
	if c.cfg.BlockTime <= 0 {
		if err := c.Mine(); err != nil {
			return false, err
		}
	}
	for {
		r, err := cl.TransactionReceipt(ctx, last.Hash())
		if err == nil && r != nil {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		select {
		case <-ctx.Done():
		case <-c.stop:
			return false, errClosed
		case <-timeAfter():
		}
	}
}

// timeAfter paces Fund's wait for its transfers.
func timeAfter() <-chan time.Time { return time.After(50 * time.Millisecond) }
