package main

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa/client"
)

// transferSelector is the ERC-20 transfer(address,uint256) function selector.
var transferSelector = []byte{0xa9, 0x05, 0x9c, 0xbb}

// sendTransfer signs and sends q's payment of units from the account of keyHex,
// over the JSON-RPC at rpcURL: an ERC-20 transfer, or a plain value transfer for
// the native coin. Gas is estimated and the fee cap is twice the base fee plus the
// suggested tip (EIP-1559). It returns the transaction hash.
func sendTransfer(ctx context.Context, rpcURL, keyHex string, q *client.Quote, units *big.Int) (string, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(keyHex, "0x"))
	if err != nil {
		return "", fmt.Errorf("--key: not a hex private key")
	}
	c, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return "", err
	}
	defer c.Close()
	id, err := c.ChainID(ctx)
	if err != nil {
		return "", fmt.Errorf("chain at %s: %w", rpcURL, err)
	}
	if id.Int64() != int64(q.ChainId) {
		return "", fmt.Errorf("the chain at %s has id %d; the invoice's network %s has %d", rpcURL, id, q.Network, q.ChainId)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	to, value, data := common.HexToAddress(q.Address), units, []byte(nil)
	if q.TokenAddress != "" {
		to, value = common.HexToAddress(q.TokenAddress), new(big.Int)
		data = append(append(append([]byte{}, transferSelector...), common.LeftPadBytes(common.HexToAddress(q.Address).Bytes(), 32)...),
			common.LeftPadBytes(units.Bytes(), 32)...)
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return "", err
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		return "", fmt.Errorf("the transfer would fail: %w", err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return "", err
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas, To: &to, Value: value, Data: data}), types.LatestSignerForChainID(id), key)
	if err != nil {
		return "", err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return "", err
	}
	return tx.Hash().Hex(), nil
}
