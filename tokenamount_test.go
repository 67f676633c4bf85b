package kassa

import (
	"math/big"
	"strings"
	"testing"
)

// TestPaymentURI checks the exact EIP-681 strings for ERC-20 and native payments and
// the inputs PaymentURI refuses.
func TestPaymentURI(t *testing.T) {
	const (
		recipient      = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
		recipientLower = "0x9858effd232b4033e47d90003d41ec34ecaeda94"
		usdtLower      = "0x337610d27c682e347c9cd60bd4b3b107c9d34ddd" // USDT on BSC testnet
		usdt           = "0x337610d27c682E347C9cD60BD4b3b107C9d34dDd"
	)
	erc20 := Token{ID: 1, Type: TokenERC20, Symbol: "USDT", Address: usdtLower, Decimals: 18}
	native := Token{ID: 2, Type: TokenNative, Symbol: "tBNB"}
	trillion := new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil) // 10^12 tokens of 18 decimals
	tests := []struct {
		name      string
		token     Token
		chainID   int64
		recipient string
		units     *big.Int
		want      string // "" for an error
	}{
		{"erc20", erc20, 97, recipientLower, big.NewInt(12_500_000_000_000_000),
			"ethereum:" + usdt + "@97/transfer?address=" + recipient + "&uint256=12500000000000000"},
		{"erc20 large amount stays plain decimal", erc20, 56, recipient, trillion,
			"ethereum:" + usdt + "@56/transfer?address=" + recipient + "&uint256=1000000000000000000000000000000"},
		{"native", native, 97, recipientLower, big.NewInt(3_000_000_000_000_000),
			"ethereum:" + recipient + "@97?value=3000000000000000"},
		{"native zero", native, 1, recipient, big.NewInt(0), "ethereum:" + recipient + "@1?value=0"},
		{"bad recipient", native, 97, "0x1234", big.NewInt(1), ""},
		{"recipient with wrong checksum", native, 97, "0x9858efFD232B4033E47d90003D41EC34EcaEda94", big.NewInt(1), ""},
		{"erc20 without contract", Token{ID: 3, Type: TokenERC20}, 97, recipient, big.NewInt(1), ""},
		{"unknown token type", Token{ID: 4, Type: "bep2"}, 97, recipient, big.NewInt(1), ""},
		{"negative amount", native, 97, recipient, big.NewInt(-1), ""},
		{"nil amount", native, 97, recipient, nil, ""},
		{"zero chain id", native, 0, recipient, big.NewInt(1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PaymentURI(tt.token, tt.chainID, tt.recipient, tt.units)
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %s, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestParseUnits reads typed token amounts exactly and refuses what is not one.
func TestParseUnits(t *testing.T) {
	tests := []struct {
		text     string
		decimals int
		want     string // "" for an error
	}{
		{"12.5", 6, "12500000"},
		{"0.000001", 6, "1"},
		{"3", 6, "3000000"},
		{"3.", 6, "3000000"},
		{".5", 6, "500000"},
		{"0", 18, "0"},
		{"1.000000000000000001", 18, "1000000000000000001"},
		{"7", 0, "7"},
		{"0.0000001", 6, ""}, // finer than the token
		{"1.5", 0, ""},
		{"", 6, ""},
		{".", 6, ""},
		{"-1", 6, ""},
		{"1,5", 6, ""},
		{"1e3", 6, ""},
		{"1.2.3", 6, ""},
		{" 1", 6, ""},
		{strings.Repeat("1", 79), 0, ""},
	}
	for _, tt := range tests {
		got, err := ParseUnits(tt.text, tt.decimals, "amount_token")
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseUnits(%q, %d) = %s, want an error", tt.text, tt.decimals, got)
		case tt.want == "" && (AsError(err).Code != "invalid_amount" || AsError(err).Param != "amount_token"):
			t.Errorf("ParseUnits(%q, %d) error %v", tt.text, tt.decimals, err)
		case tt.want != "" && (err != nil || got.String() != tt.want):
			t.Errorf("ParseUnits(%q, %d) = %v, %v; want %s", tt.text, tt.decimals, got, err, tt.want)
		case tt.want != "" && FormatUnits(got, tt.decimals) != FormatUnits(mustInt(t, tt.want), tt.decimals):
			t.Errorf("round trip of %q", tt.text)
		}
	}
}

func mustInt(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("not an integer: %q", s)
	}
	return n
}
