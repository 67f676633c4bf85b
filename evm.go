package kassa

import (
	"encoding/hex"

	"golang.org/x/crypto/sha3"
)

// CheckEVMAddress checks that s is an EVM address: 0x and 40 hex digits. An address
// in mixed case must carry a valid EIP-55 checksum; all-lower and all-upper pass.
func CheckEVMAddress(param, s string) error {
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return Invalidf(param, "invalid_address", "%s must be an EVM address: 0x followed by 40 hex digits.", param)
	}
	hexPart := s[2:]
	lower, upper := false, false
	for i := 0; i < len(hexPart); i++ {
		c := hexPart[i]
		if !isHex(c) {
			return Invalidf(param, "invalid_address", "%s must be an EVM address: 0x followed by 40 hex digits.", param)
		}
		lower = lower || ('a' <= c && c <= 'f')
		upper = upper || ('A' <= c && c <= 'F')
	}
	if lower && upper && ChecksumAddress(s)[2:] != hexPart { // the prefix may be 0X
		return Invalidf(param, "invalid_address_checksum", "%s has a wrong EIP-55 checksum.", param)
	}
	return nil
}

// ChecksumAddress returns the EIP-55 mixed-case form of a well-formed EVM address.
func ChecksumAddress(addr string) string {
	low := []byte(addr[2:])
	for i, c := range low {
		if 'A' <= c && c <= 'F' {
			low[i] = c + 'a' - 'A'
		}
	}
	hash := hex.EncodeToString(Keccak256(low))
	out := []byte("0x")
	for i, c := range low {
		if c >= 'a' && hash[i] >= '8' {
			c -= 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// Keccak256 is Ethereum's hash: Keccak with the original 0x01 padding, not SHA3-256.
func Keccak256(data []byte) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(data)
	return h.Sum(nil)
}
