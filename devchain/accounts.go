package devchain

import (
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// ChainID is the dev chain's EIP-155 chain id (and its network id), as on
// Hardhat, Anvil and geth --dev.
const ChainID = 1337

// The token contracts sit at fixed addresses, placed in the genesis block: the
// addresses of the first two contracts account 0 deploys on Hardhat or Anvil
// (nonces 0 and 1), which dev tools already know.
const (
	// USDTAddress is the USDT ("Tether USD", 6 decimals) contract, EIP-55 form.
	USDTAddress = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	// USDCAddress is the USDC ("USD Coin", 6 decimals) contract, EIP-55 form.
	USDCAddress = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
)

// Account is one of the dev chain's funded accounts. The keys are public test
// keys: anyone can spend what they hold on any chain.
type Account struct {
	Address    string // EIP-55 checksummed, 0x-prefixed
	PrivateKey string // secp256k1 key, 64 hex digits without 0x
}

// accounts are the ten accounts of the public test mnemonic "test test test
// test test test test test test test test junk" at m/44'/60'/0'/0/i, the ones
// Hardhat and Anvil fund. TestAccountsDeriveFromMnemonic derives them again.
var accounts = [...]Account{
	{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
	{"0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
	{"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"},
	{"0x90F79bf6EB2c4f870365E785982E1f101E93b906", "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"},
	{"0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"},
	{"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"},
	{"0x976EA74026E726554dB657fA54763abd0C3a0aa9", "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"},
	{"0x14dC79964da2C08b23698B3D3cc7Ca32193d9955", "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"},
	{"0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"},
	{"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"},
}

// Accounts returns the ten funded dev accounts, account 0 first. Each starts
// with 10,000 ETH and 1,000,000 of each token.
func Accounts() []Account {
	return slices.Clone(accounts[:])
}

// Token is an ERC-20 contract of the dev chain.
type Token struct {
	Symbol   string // e.g. "USDT"
	Name     string // e.g. "Tether USD"
	Address  string // EIP-55 checksummed, 0x-prefixed
	Decimals int
}

// Tokens returns the dev chain's ERC-20 tokens: USDT and USDC, both with 6
// decimals.
func Tokens() []Token {
	return []Token{
		{Symbol: "USDT", Name: "Tether USD", Address: USDTAddress, Decimals: 6},
		{Symbol: "USDC", Name: "USD Coin", Address: USDCAddress, Decimals: 6},
	}
}

// Starting balances of every dev account.
var (
	// initialEther is 10,000 ETH in wei.
	initialEther = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))
	// initialTokens is 1,000,000 tokens of 6 decimals, in base units.
	initialTokens = big.NewInt(1_000_000 * 1_000_000)
)

// accountAddresses returns the dev accounts' addresses.
func accountAddresses() []common.Address {
	addrs := make([]common.Address, len(accounts))
	for i, a := range accounts {
		addrs[i] = common.HexToAddress(a.Address)
	}
	return addrs
}
