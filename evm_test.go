package kassa

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// patterned returns n bytes 0, 1, 2, ... (mod 256).
func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestKeccak256(t *testing.T) {
	// Expected values for the longer inputs come from golang.org/x/crypto/sha3's
	// NewLegacyKeccak256, computed outside this module.
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc", []byte("abc"), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
		{"fox", []byte("The quick brown fox jumps over the lazy dog"), "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
		{"200 x a3", bytes.Repeat([]byte{0xa3}, 200), "3a57666b048777f2c953dc4456f45a2588e1cb6f2da760122d530ac2ce607d4a"},
		{"135 bytes", patterned(135), "cbdfd9dee5faad3818d6b06f95a219fd290b0e1706f6a82e5a595b9ce9faca62"},
		{"136 bytes", patterned(136), "7ce759f1ab7f9ce437719970c26b0a66ff11fe3e38e17df89cf5d29c7d7f807e"},
		{"137 bytes", patterned(137), "ac73d4fae68b8453f764007c1a20ce95994187861f0c3227a3a8e99a73a3b1db"},
		{"271 bytes", patterned(271), "7c974895b2a88303ff2dc6b58f438ceb0b298cac91099ac0539cc0f477506191"},
		{"272 bytes", patterned(272), "fdf2ec49e749960d3c8521a0219af8d03e30e2b3bf19bd16150ee0eaf133d66e"},
		{"273 bytes", patterned(273), "4f707289a9c3ccd0c4a51f2f17339f5dd171d371c04ff7783b735b5b22682eaf"},
		{"1000 bytes", patterned(1000), "aca79e4146e30eb1c733f6d6060d72471c36ea4e01ebf45d7f4916249c2bbd82"},
	}
	for _, tt := range tests {
		in := append([]byte(nil), tt.in...)
		if got := hex.EncodeToString(Keccak256(tt.in)); got != tt.want {
			t.Errorf("Keccak256(%s) = %s, want %s", tt.name, got, tt.want)
		}
		if !bytes.Equal(in, tt.in) {
			t.Errorf("Keccak256(%s) changed its input", tt.name)
		}
	}
}

func TestChecksumAddress(t *testing.T) {
	// Test vectors of EIP-55.
	for _, want := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
		"0x52908400098527886E0F7030069857D2E4169EE7",
		"0x8617E340B3D01FA5F11F306F4090FD50E238070D",
		"0xde709f2102306220921060314715629080e2fb77",
		"0x27b1fdb04752bbc536007a920d24acb045561c26",
	} {
		for _, in := range []string{want, strings.ToLower(want), "0x" + strings.ToUpper(want[2:])} {
			if got := ChecksumAddress(in); got != want {
				t.Errorf("ChecksumAddress(%s) = %s, want %s", in, got, want)
			}
		}
		if err := CheckEVMAddress("address", want); err != nil {
			t.Errorf("CheckEVMAddress(%s) = %v", want, err)
		}
	}
}

func TestCheckEVMAddress(t *testing.T) {
	const good = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	tests := []struct {
		in   string
		code string // "" when accepted
	}{
		{good, ""},
		{strings.ToLower(good), ""},
		{"0x" + strings.ToUpper(good[2:]), ""},
		{"0x0000000000000000000000000000000000000000", ""},
		{"0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", ""}, // correct checksum, upper-case prefix
		{"0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", ""},
		{"0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "invalid_address_checksum"},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "invalid_address_checksum"},
		{"0xfB6916095CA1df60bB79Ce92cE3Ea74c37c5d359", "invalid_address_checksum"},
		{"", "invalid_address"},
		{"0x", "invalid_address"},
		{good[:41], "invalid_address"},
		{good + "0", "invalid_address"},
		{good[2:], "invalid_address"},
		{"00" + good[2:], "invalid_address"},
		{"5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00", "invalid_address"},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg", "invalid_address"},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA d", "invalid_address"},
		{"0x-aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "invalid_address"},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAé", "invalid_address"},
		{" 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", "invalid_address"},
	}
	for _, tt := range tests {
		err := CheckEVMAddress("settlement.devnet.address", tt.in)
		if tt.code == "" {
			if err != nil {
				t.Errorf("CheckEVMAddress(%q) = %v, want ok", tt.in, err)
			}
			continue
		}
		t.Run(tt.in, func(t *testing.T) {
			wantCode(t, err, KindInvalid, tt.code, "settlement.devnet.address")
		})
	}
}
