package registry

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kassapay/kassa"
)

// writeFile writes data to a fresh temporary file and returns its path.
func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "registry.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustLoad loads the registry at path ("" for the embedded one) or fails the test.
func mustLoad(t *testing.T, path string) *Registry {
	t.Helper()
	r, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%q): %v", path, err)
	}
	return r
}

func TestEmbeddedDevnetMinimum(t *testing.T) {
	r := mustLoad(t, "")
	nets := r.Networks(kassa.Devnet)
	if len(nets) < 2 {
		t.Fatalf("devnet has %d networks, want at least 2", len(nets))
	}
	stables := map[string]map[string]bool{} // network → stable symbols
	natives := 0
	for _, tok := range r.Tokens(kassa.Devnet) {
		if tok.Type == kassa.TokenNative {
			natives++
		}
		if tok.Stable && tok.Type == kassa.TokenERC20 && tok.Monitored && tok.SettlementRoute {
			if stables[tok.Network] == nil {
				stables[tok.Network] = map[string]bool{}
			}
			stables[tok.Network][tok.Symbol] = true
		}
	}
	withBoth := 0
	for _, syms := range stables {
		if syms["USDT"] && syms["USDC"] {
			withBoth++
		}
	}
	if withBoth < 2 || natives < 1 {
		t.Fatalf("devnet: %d networks with USDT and USDC, %d native coins; want 2 and 1", withBoth, natives)
	}
}

func TestEmbeddedContents(t *testing.T) {
	r := Default()
	tests := []struct {
		env                    kassa.Environment
		name, native, explorer string
		chainID                int64
		confirmations          int
		derivationIndex        uint32
	}{
		{kassa.Devnet, "bsc-testnet", "tBNB", "https://testnet.bscscan.com", 97, 3, 0},
		{kassa.Devnet, "ethereum-sepolia", "SepoliaETH", "https://sepolia.etherscan.io", 11155111, 3, 1},
		{kassa.Mainnet, "bsc", "BNB", "https://bscscan.com", 56, 15, 2},
		{kassa.Mainnet, "ethereum", "ETH", "https://etherscan.io", 1, 12, 3},
	}
	for _, tt := range tests {
		n, ok := r.Network(tt.env, tt.name)
		if !ok {
			t.Errorf("network %s/%s missing", tt.env, tt.name)
			continue
		}
		if n.NativeSymbol != tt.native || n.ExplorerURL != tt.explorer || n.ChainID != tt.chainID ||
			n.Confirmations != tt.confirmations || n.DerivationIndex != tt.derivationIndex {
			t.Errorf("network %s = %+v", tt.name, n)
		}
		if _, ok := r.Network(otherEnv(tt.env), tt.name); ok {
			t.Errorf("network %s found in the other environment", tt.name)
		}
	}
	mainnet := map[int64]struct {
		address  string
		decimals int
	}{
		101: {"0x55d398326f99059fF775485246999027B3197955", 18},
		102: {"0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", 18},
		104: {"0xdAC17F958D2ee523a2206206994597C13D831ec7", 6},
		105: {"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", 6},
	}
	for id, want := range mainnet {
		tok, ok := r.Token(kassa.Mainnet, id)
		if !ok || tok.Address != want.address || tok.Decimals != want.decimals || !tok.Stable {
			t.Errorf("mainnet token %d = %+v, %v", id, tok, ok)
		}
		if _, ok := r.Token(kassa.Devnet, id); ok {
			t.Errorf("mainnet token %d found in devnet", id)
		}
	}
}

func otherEnv(e kassa.Environment) kassa.Environment {
	if e == kassa.Devnet {
		return kassa.Mainnet
	}
	return kassa.Devnet
}

func TestListsSortedAndCopied(t *testing.T) {
	r := Default()
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		nets := r.Networks(env)
		if !slices.IsSortedFunc(nets, func(a, b kassa.Network) int { return cmp.Compare(a.Name, b.Name) }) {
			t.Errorf("%s networks not sorted by name", env)
		}
		toks := r.Tokens(env)
		if !slices.IsSortedFunc(toks, func(a, b kassa.Token) int { return cmp.Compare(a.ID, b.ID) }) {
			t.Errorf("%s tokens not sorted by id", env)
		}
		nets[0].Name, toks[0].Symbol = "changed", "changed"
		if r.Networks(env)[0].Name == "changed" || r.Tokens(env)[0].Symbol == "changed" {
			t.Errorf("%s: a returned slice aliases the registry", env)
		}
	}
	if got := r.Tokens("testnet"); len(got) != 0 {
		t.Errorf("unknown environment has tokens: %v", got)
	}
}

func TestOverrideReplacesDefault(t *testing.T) {
	f := validFile()
	f.Tokens[0].Address = "0x337610d27c682e347c9cd60bd4b3b107c9d34ddd" // lower case: stored as EIP-55
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	r := mustLoad(t, writeFile(t, data))
	if got := r.Networks(kassa.Devnet); len(got) != 1 || got[0].Name != "local-net" {
		t.Fatalf("devnet networks = %+v, want only local-net", got)
	}
	if got := r.Networks(kassa.Mainnet); len(got) != 0 {
		t.Fatalf("mainnet networks = %+v, want none: the override replaces the default", got)
	}
	tok, ok := r.Token(kassa.Devnet, 7)
	if !ok || tok.Address != "0x337610d27c682E347C9cD60BD4b3b107C9d34dDd" {
		t.Fatalf("token 7 = %+v, %v; want the EIP-55 address", tok, ok)
	}
	if _, ok := r.Token(kassa.Devnet, 1); ok {
		t.Fatal("a default token survived the override")
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "absent.json")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestNewLeavesFileAlone(t *testing.T) {
	f := validFile()
	f.Tokens[0].Address = "0x337610d27c682e347c9cd60bd4b3b107c9d34ddd"
	if _, err := New(f); err != nil {
		t.Fatal(err)
	}
	if f.Tokens[0].Address != "0x337610d27c682e347c9cd60bd4b3b107c9d34ddd" {
		t.Fatalf("New rewrote the caller's address to %s", f.Tokens[0].Address)
	}
}
