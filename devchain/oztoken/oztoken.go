// Package oztoken deploys OpenZeppelin's standard ERC-20 on an EVM node, for
// tests that must run against a token nobody here wrote: the dev chain's own
// USDT and USDC are funded everywhere and hide what a real token does (a
// transfer from an address holding none of it reverts).
//
// The contract is ERC20PresetFixedSupply of @openzeppelin/contracts 4.9.6 (MIT):
// 18 decimals, the whole supply minted to an owner at deployment. Its ABI and
// creation bytecode are kept in testdata (fetched by testdata/fetch.sh, license
// in testdata/LICENSE-openzeppelin.txt), so tests run offline.
package oztoken

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

//go:embed testdata/ERC20PresetFixedSupply.json
var artifact []byte

// Version is the npm package the contract was built from.
const Version = "@openzeppelin/contracts@4.9.6"

// Decimals is the token's decimals (OpenZeppelin's default).
const Decimals = 18

// Deploy deploys a token named name with symbol, minting supply base units to
// owner, from key's account on the node at url; it waits until the deployment
// is mined (a dev chain mining a block per transaction, or one mining on a
// timer) and returns the contract's address in EIP-55 form.
func Deploy(ctx context.Context, url string, key *ecdsa.PrivateKey, name, symbol string, supply *big.Int, owner string) (string, error) {
	var a struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(artifact, &a); err != nil {
		return "", err
	}
	parsed, err := abi.JSON(bytes.NewReader(a.ABI))
	if err != nil {
		return "", err
	}
	args, err := parsed.Pack("", name, symbol, supply, common.HexToAddress(owner))
	if err != nil {
		return "", err
	}
	data := append(common.FromHex(a.Bytecode), args...)

	cl, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		return "", err
	}
	chainID, err := cl.ChainID(ctx)
	if err != nil {
		return "", err
	}
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, Data: data})
	if err != nil {
		return "", fmt.Errorf("oztoken: estimate deployment: %w", err)
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		return "", err
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: feeCap, Gas: gas, Data: data}), types.LatestSignerForChainID(chainID), key)
	if err != nil {
		return "", err
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		return "", fmt.Errorf("oztoken: deploy: %w", err)
	}
	for {
		r, err := cl.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r != nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return "", fmt.Errorf("oztoken: deployment %s reverted", tx.Hash())
			}
			return r.ContractAddress.Hex(), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
