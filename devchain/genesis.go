package devchain

import (
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"maps"
	"math/big"
	"sync"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/params"
)

// ChainID is the dev chain's EIP-155 chain id.
const ChainID = 1337

// The dev chain's ERC-20 contracts, at the addresses Hardhat and Anvil give the
// first two contracts account 0 deploys, so tutorials that assume them work.
const (
	USDTAddress = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	USDCAddress = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
)

// Mnemonic is the public test mnemonic of Hardhat and Anvil. Its accounts are
// known to everyone: never send real money to them.
const Mnemonic = "test test test test test test test test test test test junk"

// Account is a funded dev account.
type Account struct {
	Address    string // EIP-55
	PrivateKey string // hex, without 0x
}

// Token is one of the dev chain's ERC-20 tokens.
type Token struct {
	Symbol, Name, Address string
	Decimals              int
}

// Tokens lists the dev chain's ERC-20 tokens.
func Tokens() []Token {
	return []Token{
		{Symbol: "USDT", Name: "Tether USD", Address: USDTAddress, Decimals: 6},
		{Symbol: "USDC", Name: "USD Coin", Address: USDCAddress, Decimals: 6},
	}
}

var (
	accountsOnce sync.Once
	accounts     []Account
)

// Accounts returns the ten accounts of Mnemonic, m/44'/60'/0'/0/i as Hardhat and
// Anvil derive them. Each starts with 10,000 ETH and 1,000,000 USDT and USDC.
func Accounts() []Account {
	accountsOnce.Do(func() {
		seed, err := pbkdf2.Key(sha512.New, Mnemonic, []byte("mnemonic"), 2048, 64) // BIP-39
		var k *hdkeychain.ExtendedKey
		if err == nil {
			k, err = hdkeychain.NewMaster(seed, &chaincfg.MainNetParams)
		}
		for _, i := range []uint32{44 + hdkeychain.HardenedKeyStart, 60 + hdkeychain.HardenedKeyStart, hdkeychain.HardenedKeyStart, 0} {
			if err == nil {
				k, err = k.Derive(i)
			}
		}
		for i := uint32(0); i < 10 && err == nil; i++ {
			var child *hdkeychain.ExtendedKey
			if child, err = k.Derive(i); err != nil {
				break
			}
			priv, perr := child.ECPrivKey()
			if perr != nil {
				err = perr
				break
			}
			key, kerr := crypto.ToECDSA(priv.Serialize())
			if kerr != nil {
				err = kerr
				break
			}
			accounts = append(accounts, Account{Address: crypto.PubkeyToAddress(key.PublicKey).Hex(),
				PrivateKey: hex.EncodeToString(crypto.FromECDSA(key))})
		}
		if err != nil {
			panic(fmt.Sprintf("devchain: deriving the test accounts: %v", err)) // fixed input: cannot happen
		}
	})
	return accounts
}

// Starting balances of every dev account.
var (
	startETH   = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))
	startToken = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e6))
)

// chainConfig is go-ethereum's dev chain config with today's mainnet rules: its
// dev config also turns on a future fork (Bogota) that reprices state access, under
// which an ERC-20 transfer costs about 147k gas instead of 51k.
func chainConfig() *params.ChainConfig {
	c := *params.AllDevChainProtocolChanges // a copy: the global is shared
	c.ChainID = big.NewInt(ChainID)
	c.BogotaTime, c.AmsterdamTime = nil, nil
	return &c
}

// genesis is the dev chain's first block: the system contracts, the funded
// accounts, and the two tokens with their balances in storage.
func genesis() *core.Genesis {
	alloc := core.SystemContractAllocs()
	for _, a := range Accounts() {
		alloc[common.HexToAddress(a.Address)] = types.Account{Balance: new(big.Int).Set(startETH)}
	}
	for _, t := range Tokens() {
		storage := map[common.Hash]common.Hash{}
		total := new(big.Int)
		for _, a := range Accounts() {
			storage[common.BytesToHash(balanceKey(common.HexToAddress(a.Address)))] = common.BigToHash(startToken)
			total.Add(total, startToken)
		}
		storage[common.BigToHash(big.NewInt(slotTotalSupply))] = common.BigToHash(total)
		alloc[common.HexToAddress(t.Address)] = types.Account{Code: tokenCode(t.Name, t.Symbol, uint64(t.Decimals)),
			Storage: maps.Clone(storage), Balance: new(big.Int)}
	}
	return &core.Genesis{Config: chainConfig(), GasLimit: ethconfig.Defaults.Miner.GasCeil, Alloc: alloc,
		BaseFee: big.NewInt(params.InitialBaseFee)}
}

// balanceKey is the storage slot of owner's balance (Solidity's mapping at slot 0).
func balanceKey(owner common.Address) []byte {
	return crypto.Keccak256(common.LeftPadBytes(owner.Bytes(), 32), make([]byte, 32))
}
