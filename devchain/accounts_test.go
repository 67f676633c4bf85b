package devchain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/kassapay/kassa/devchain"
)

// hardhatAccounts are the accounts Hardhat and Anvil print for the test mnemonic.
var hardhatAccounts = []devchain.Account{
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

func TestAccountsAreTheMnemonicsHardhatAccounts(t *testing.T) {
	got := devchain.Accounts()
	if len(got) != len(hardhatAccounts) {
		t.Fatalf("%d accounts, want %d", len(got), len(hardhatAccounts))
	}
	for i, want := range hardhatAccounts {
		if got[i] != want {
			t.Errorf("account %d = %+v, want %+v", i, got[i], want)
		}
		k, err := crypto.HexToECDSA(got[i].PrivateKey)
		if err != nil {
			t.Fatalf("account %d: key: %v", i, err)
		}
		if a := crypto.PubkeyToAddress(k.PublicKey).Hex(); a != got[i].Address {
			t.Errorf("account %d: key's address %s, listed %s", i, a, got[i].Address)
		}
	}
	if again := devchain.Accounts(); len(again) != len(got) || again[9] != got[9] {
		t.Errorf("a second call gives %+v", again)
	}
}

func TestTokensList(t *testing.T) {
	want := []devchain.Token{
		{Symbol: "USDT", Name: "Tether USD", Address: devchain.USDTAddress, Decimals: 6},
		{Symbol: "USDC", Name: "USD Coin", Address: devchain.USDCAddress, Decimals: 6},
	}
	got := devchain.Tokens()
	if len(got) != len(want) {
		t.Fatalf("tokens %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d = %+v, want %+v", i, got[i], want[i])
		}
		if a := common.HexToAddress(got[i].Address).Hex(); a != got[i].Address {
			t.Errorf("token %s address %s is not EIP-55 (%s)", got[i].Symbol, got[i].Address, a)
		}
	}
}

func TestGenesisFundsEveryAccount(t *testing.T) {
	c := startChain(t, "", 0)
	ctx := context.Background()
	genesis := big.NewInt(0)
	eth := new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))
	for i := range devchain.Accounts() {
		owner := account(i)
		if b, err := c.client.BalanceAt(ctx, owner, genesis); err != nil || b.Cmp(eth) != 0 {
			t.Errorf("account %d: ETH at genesis %v, %v; want %v", i, b, err, eth)
		}
		if n, err := c.client.NonceAt(ctx, owner, genesis); err != nil || n != 0 {
			t.Errorf("account %d: nonce %d, %v", i, n, err)
		}
		for _, token := range []common.Address{usdt, usdc} {
			out, err := c.client.CallContract(ctx, ethereum.CallMsg{To: &token, Data: pack(t, "balanceOf", owner)}, genesis)
			if err != nil {
				t.Fatalf("balanceOf: %v", err)
			}
			if b := new(big.Int).SetBytes(out); len(out) != 32 || b.Cmp(units(1_000_000)) != 0 {
				t.Errorf("account %d: %s balance at genesis %x, want 1,000,000 tokens", i, token, out)
			}
		}
	}
}
