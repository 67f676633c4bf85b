package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// validFile returns a small valid override: one devnet network with an ERC-20 token
// and its native coin.
func validFile() File {
	return File{
		Networks: []kassa.Network{{
			Name: "local-net", DisplayName: "Local", Environment: kassa.Devnet, ChainID: 1337,
			Confirmations: 1, ExplorerURL: "http://localhost:4000", NativeSymbol: "LOC", DerivationIndex: 9,
		}},
		Tokens: []kassa.Token{
			{ID: 7, Environment: kassa.Devnet, Network: "local-net", Symbol: "USDT", Name: "Tether",
				Type: kassa.TokenERC20, Address: "0x337610d27c682E347C9cD60BD4b3b107C9d34dDd", Decimals: 6,
				IconURI: "/static/tokens/usdt.svg", Stable: true, SettlementRoute: true, Monitored: true},
			{ID: 8, Environment: kassa.Devnet, Network: "local-net", Symbol: "LOC", Name: "Local coin",
				Type: kassa.TokenNative, Decimals: 18, IconURI: "https://example.com/loc.svg", Monitored: true},
		},
	}
}

// loadErr writes f to a temporary file, loads it and returns the error.
func loadErr(t *testing.T, f File) error {
	t.Helper()
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(writeFile(t, data))
	return err
}

func TestValidFileLoads(t *testing.T) {
	if err := loadErr(t, validFile()); err != nil {
		t.Fatal(err)
	}
}

func TestValidationRejects(t *testing.T) {
	second := kassa.Network{Name: "other", DisplayName: "Other", Environment: kassa.Devnet, ChainID: 5,
		Confirmations: 2, ExplorerURL: "https://other.example", NativeSymbol: "OTH", DerivationIndex: 10}
	tests := []struct {
		name   string
		mutate func(f *File)
		want   string // a substring the error must contain
	}{
		{"no networks", func(f *File) { f.Networks, f.Tokens = nil, nil }, "no networks"},
		{"network environment", func(f *File) { f.Networks[0].Environment = "testnet" }, `networks[0] ("local-net", testnet): unknown environment`},
		{"network name empty", func(f *File) { f.Networks[0].Name = "" }, "networks[0]"},
		{"network name case", func(f *File) { f.Networks[0].Name = "Local" }, `("Local", devnet): name`},
		{"network name hyphens", func(f *File) { f.Networks[0].Name = "local--net" }, "name must be"},
		{"duplicate network", func(f *File) { f.Networks = append(f.Networks, f.Networks[0]) }, `networks[1] ("local-net", devnet): name repeated`},
		{"display name", func(f *File) { f.Networks[0].DisplayName = " " }, "display_name"},
		{"chain id zero", func(f *File) { f.Networks[0].ChainID = 0 }, "chain_id 0"},
		{"chain id negative", func(f *File) { f.Networks[0].ChainID = -1 }, "chain_id -1"},
		{"chain id repeated", func(f *File) { s := second; s.ChainID = 1337; f.Networks = append(f.Networks, s) }, `("other", devnet): chain_id 1337 already used by network "local-net"`},
		{"confirmations", func(f *File) { f.Networks[0].Confirmations = 0 }, "confirmations 0"},
		{"native symbol", func(f *File) { f.Networks[0].NativeSymbol = "" }, "native_symbol"},
		{"explorer relative", func(f *File) { f.Networks[0].ExplorerURL = "/explorer" }, "explorer_url"},
		{"explorer scheme", func(f *File) { f.Networks[0].ExplorerURL = "ftp://x.example" }, "explorer_url"},
		{"explorer slash", func(f *File) { f.Networks[0].ExplorerURL = "https://x.example/" }, "trailing slash"},
		{"explorer query", func(f *File) { f.Networks[0].ExplorerURL = "https://x.example?a=1" }, "trailing slash"},
		{"derivation index", func(f *File) { s := second; s.DerivationIndex = 9; f.Networks = append(f.Networks, s) }, "derivation_index 9 already used"},
		{"token id zero", func(f *File) { f.Tokens[0].ID = 0 }, "tokens[0] (id 0, \"USDT\" on \"local-net\"): id must be"},
		{"token id repeated", func(f *File) { f.Tokens[1].ID = 7 }, "tokens[1] (id 7"},
		{"token id repeated across environments", func(f *File) {
			s := second
			s.Environment = kassa.Mainnet
			f.Networks = append(f.Networks, s)
			tok := f.Tokens[0]
			tok.Environment, tok.Network = kassa.Mainnet, "other"
			f.Tokens = append(f.Tokens, tok)
		}, "tokens[2] (id 7, \"USDT\" on \"other\"): id repeated"},
		{"token environment", func(f *File) { f.Tokens[0].Environment = "" }, "unknown environment"},
		{"token network missing", func(f *File) { f.Tokens[0].Network = "nowhere" }, `no network "nowhere" in environment devnet`},
		{"token network in other environment", func(f *File) { f.Tokens[0].Environment = kassa.Mainnet }, `no network "local-net" in environment mainnet`},
		{"symbol", func(f *File) { f.Tokens[0].Symbol = "" }, "symbol is empty"},
		{"name", func(f *File) { f.Tokens[0].Name = "" }, "name is empty"},
		{"type", func(f *File) { f.Tokens[0].Type = "bep20" }, `type "bep20"`},
		{"decimals negative", func(f *File) { f.Tokens[0].Decimals = -1 }, "decimals -1"},
		{"decimals large", func(f *File) { f.Tokens[0].Decimals = 37 }, "decimals 37"},
		{"address missing", func(f *File) { f.Tokens[0].Address = "" }, "EVM address"},
		{"address short", func(f *File) { f.Tokens[0].Address = "0x1234" }, "EVM address"},
		{"address not hex", func(f *File) { f.Tokens[0].Address = "0x337610d27c682e347c9cd60bd4b3b107c9d34ddg" }, "EVM address"},
		{"address checksum", func(f *File) { f.Tokens[0].Address = "0x337610d27c682E347C9cD60BD4b3b107C9d34ddd" }, "EIP-55"},
		{"address repeated", func(f *File) {
			tok := f.Tokens[0]
			tok.ID, tok.Symbol = 9, "USDC"
			f.Tokens = append(f.Tokens, tok)
		}, "tokens[2] (id 9, \"USDC\" on \"local-net\"): address"},
		{"symbol repeated", func(f *File) {
			tok := f.Tokens[0]
			tok.ID, tok.Address = 9, "0x64544969ed7EBf5f083679233325356EbE738930"
			f.Tokens = append(f.Tokens, tok)
		}, "symbol repeated"},
		{"native with address", func(f *File) { f.Tokens[1].Address = f.Tokens[0].Address }, "native token has no address"},
		{"native symbol mismatch", func(f *File) { f.Tokens[1].Symbol = "ETH" }, `native_symbol "LOC"`},
		{"two natives", func(f *File) { tok := f.Tokens[1]; tok.ID = 9; tok.Symbol = "LOC"; f.Tokens = append(f.Tokens, tok) }, "symbol repeated"},
		{"icon relative", func(f *File) { f.Tokens[0].IconURI = "static/usdt.svg" }, "icon_uri"},
		{"icon scheme", func(f *File) { f.Tokens[0].IconURI = "javascript:alert(1)" }, "icon_uri"},
		{"icon scheme-relative", func(f *File) { f.Tokens[0].IconURI = "//evil.example/x.svg" }, "icon_uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := validFile()
			tt.mutate(&f)
			err := loadErr(t, f)
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestMalformedFiles(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty", "", "malformed JSON"},
		{"not an object", "[]", "malformed JSON"},
		{"unknown field", `{"networks": [], "tokenz": []}`, "unknown field"},
		{"unknown token field", `{"tokens": [{"id": 1, "decimal": 6}]}`, "unknown field"},
		{"trailing data", `{"networks": []} {}`, "after the top-level object"},
		{"wrong type", `{"networks": [{"chain_id": "97"}]}`, "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFile(t, []byte(tt.text)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}
