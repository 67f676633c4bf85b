package devchain

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/params"
)

// chainConfig returns the dev chain's protocol rules: go-ethereum's dev chain
// config (every fork up to Osaka from genesis) without the forks that are not
// live on Ethereum mainnet, so gas costs are today's mainnet costs. Bogota, on
// in go-ethereum's dev config, reprices state growth: an ERC-20 transfer to a
// fresh address costs ~147k gas there against ~51k on mainnet.
func chainConfig() *params.ChainConfig {
	cfg := *params.AllDevChainProtocolChanges // a copy: the global is shared
	cfg.ChainID = big.NewInt(ChainID)
	cfg.BPO1Time = nil
	cfg.BPO2Time = nil
	cfg.BPO3Time = nil
	cfg.BPO4Time = nil
	cfg.BPO5Time = nil
	cfg.AmsterdamTime = nil
	cfg.BogotaTime = nil
	cfg.UBTTime = nil
	return &cfg
}

// genesis returns the dev chain's genesis block: the system contracts of the
// active forks, 10,000 ETH for each dev account, and the token contracts with
// 1,000,000 tokens for each dev account already in their storage (no
// deployment transaction). Its timestamp is 0, so the block, and its hash, is
// the same on every run.
func genesis() *core.Genesis {
	alloc := core.SystemContractAllocs()
	holders := accountAddresses()
	for _, addr := range holders {
		alloc[addr] = types.Account{Balance: new(big.Int).Set(initialEther)}
	}
	for _, t := range Tokens() {
		alloc[common.HexToAddress(t.Address)] = tokenAccount(t, holders)
	}
	return &core.Genesis{
		Config:   chainConfig(),
		GasLimit: ethconfig.Defaults.Miner.GasCeil,
		BaseFee:  big.NewInt(params.InitialBaseFee),
		Alloc:    alloc,
	}
}

// tokenAccount is the genesis account of token t: its runtime code and a
// storage in which each holder has initialTokens.
func tokenAccount(t Token, holders []common.Address) types.Account {
	storage := make(map[common.Hash]common.Hash, len(holders)+1)
	for _, h := range holders {
		storage[balanceKey(h)] = common.BigToHash(initialTokens)
	}
	supply := new(big.Int).Mul(initialTokens, big.NewInt(int64(len(holders))))
	storage[common.BigToHash(big.NewInt(slotTotalSupply))] = common.BigToHash(supply)
	return types.Account{
		Code:    erc20Runtime(t.Name, t.Symbol, uint8(t.Decimals)),
		Storage: storage,
		Nonce:   1, // a deployed contract starts at nonce 1 (EIP-161)
		Balance: new(big.Int),
	}
}
