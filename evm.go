package kassa

import (
	"encoding/hex"
	"math/bits"
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
	const rate = 136
	var st [25]uint64
	absorb := func(block []byte) {
		for i := 0; i < rate/8; i++ {
			var w uint64
			for j := 7; j >= 0; j-- {
				w = w<<8 | uint64(block[i*8+j])
			}
			st[i] ^= w
		}
		keccakF(&st)
	}
	for len(data) >= rate {
		absorb(data[:rate])
		data = data[rate:]
	}
	last := make([]byte, rate)
	copy(last, data)
	last[len(data)] ^= 0x01
	last[rate-1] ^= 0x80
	absorb(last)
	out := make([]byte, 32)
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			out[i*8+j] = byte(st[i] >> (8 * j))
		}
	}
	return out
}

var keccakRC = [24]uint64{
	0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
	0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
	0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
	0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
	0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
	0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
}

// keccakRot and keccakPi are the rho rotations and pi lane order of Keccak-f[1600].
var (
	keccakRot = [24]int{1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44}
	keccakPi  = [24]int{10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1}
)

func keccakF(a *[25]uint64) {
	for round := 0; round < 24; round++ {
		var c [5]uint64
		for x := 0; x < 5; x++ {
			c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20]
		}
		for x := 0; x < 5; x++ {
			d := c[(x+4)%5] ^ bits.RotateLeft64(c[(x+1)%5], 1)
			for y := 0; y < 25; y += 5 {
				a[y+x] ^= d
			}
		}
		t := a[1]
		for i := 0; i < 24; i++ {
			j := keccakPi[i]
			t, a[j] = a[j], bits.RotateLeft64(t, keccakRot[i])
		}
		for y := 0; y < 25; y += 5 {
			var row [5]uint64
			copy(row[:], a[y:y+5])
			for x := 0; x < 5; x++ {
				a[y+x] = row[x] ^ (^row[(x+1)%5] & row[(x+2)%5])
			}
		}
		a[0] ^= keccakRC[round]
	}
}
