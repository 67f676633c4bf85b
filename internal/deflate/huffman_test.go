package deflate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// fibonacci is n frequencies growing as Fibonacci numbers: the most skewed
// distribution, whose optimal code is n-1 bits deep.
func fibonacci(n int) []uint32 {
	f := make([]uint32, n)
	a, b := uint32(1), uint32(1)
	for i := range f {
		f[i], a, b = a, b, a+b
	}
	return f
}

// optimalHuffman is the size in bits of freq coded with an optimal code of any
// depth, and that depth: Huffman's algorithm, plainly.
func optimalHuffman(t *testing.T, freq []uint32) (size, depth int) {
	t.Helper()
	type node struct{ weight, depth int }
	var nodes []node
	for _, f := range freq {
		if f > 0 {
			nodes = append(nodes, node{int(f), 0})
		}
	}
	for len(nodes) > 1 {
		slices.SortFunc(nodes, func(a, b node) int { return a.weight - b.weight })
		merged := node{nodes[0].weight + nodes[1].weight, max(nodes[0].depth, nodes[1].depth) + 1}
		size += merged.weight
		nodes = append(nodes[2:], merged)
	}
	if len(nodes) == 1 {
		depth = nodes[0].depth
	}
	return size, depth
}

// checkCode fails unless lengths and codes are a complete prefix code no longer
// than maxBits with a code for every symbol of freq that occurs.
func checkCode(t *testing.T, freq []uint32, maxBits int, lengths []uint8, codes []huffCode) {
	t.Helper()
	kraft := 0 // in units of 2^-maxBits
	for s, l := range lengths {
		switch {
		case int(l) > maxBits:
			t.Fatalf("symbol %d: length %d, longer than %d", s, l, maxBits)
		case l == 0 && freq[s] > 0:
			t.Fatalf("symbol %d occurs %d times and has no code", s, freq[s])
		case l > 0:
			kraft += 1 << (maxBits - int(l))
			if codes[s].len != l {
				t.Fatalf("symbol %d: code of %d bits, length %d", s, codes[s].len, l)
			}
		}
	}
	if kraft != 1<<maxBits {
		t.Fatalf("Kraft sum %d/%d: want a complete code (1)", kraft, 1<<maxBits)
	}
	for a := range lengths {
		for b := range lengths {
			la, lb := codes[a].len, codes[b].len
			if a == b || la == 0 || lb == 0 || la > lb {
				continue
			}
			// Codes are stored bit-reversed: a prefix is in the low bits.
			if codes[b].code&(1<<la-1) == codes[a].code {
				t.Fatalf("code of %d (%d bits) is a prefix of %d's (%d bits)", a, la, b, lb)
			}
		}
	}
}

// TestHuffBuilder: the codes built are complete prefix codes within DEFLATE's
// length limits for any frequencies, optimal where the limit does not bind.
func TestHuffBuilder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	randomFreq := make([]uint32, 286)
	for i := range randomFreq {
		if r.IntN(3) > 0 {
			randomFreq[i] = uint32(r.IntN(1000))
		}
	}
	equal := make([]uint32, 286)
	for i := range equal {
		equal[i] = 5
	}
	oneHeavy := make([]uint32, 30)
	oneHeavy[3], oneHeavy[29] = 1<<20, 1
	large := make([]uint32, 286)
	for i := range large {
		large[i] = uint32(i) << 12 // two radix passes and more
	}
	tests := []struct {
		name    string
		freq    []uint32
		maxBits int
		optimal bool // the limit does not bind: the size must be optimal's
	}{
		{"Fibonacci, 35 symbols, 15 bits", fibonacci(35), 15, false},
		{"Fibonacci over 286, 15 bits", append(make([]uint32, 250), fibonacci(36)...), 15, false},
		{"Fibonacci, 19 symbols, 7 bits", fibonacci(19), 7, false},
		{"Fibonacci, 12 symbols, 15 bits", fibonacci(12), 15, true},
		{"all equal", equal, 15, true},
		{"random", randomFreq, 15, true},
		{"large counts", large, 15, true},
		{"one heavy, one light", oneHeavy, 15, true},
		{"one symbol", []uint32{0, 0, 9, 0}, 15, false},
		{"the last symbol only", []uint32{0, 0, 0, 9}, 7, false},
		{"the first symbol only", []uint32{9, 0, 0}, 7, false},
		{"no symbol", make([]uint32, 30), 15, false},
		{"two symbols", []uint32{0, 4, 0, 1}, 15, true},
	}
	var b huffBuilder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lengths := make([]uint8, len(tt.freq))
			codes := make([]huffCode, len(tt.freq))
			size := b.build(tt.freq, tt.maxBits, lengths, codes)
			checkCode(t, tt.freq, tt.maxBits, lengths, codes)
			want := 0
			for s, f := range tt.freq {
				want += int(f) * int(lengths[s])
			}
			if size != want {
				t.Errorf("build says %d bits, the lengths make %d", size, want)
			}
			if opt, depth := optimalHuffman(t, tt.freq); tt.optimal && size != opt {
				t.Errorf("%d bits, optimal (%d deep) is %d", size, depth, opt)
			} else if !tt.optimal && depth > tt.maxBits && size < opt {
				t.Errorf("%d bits, below optimal %d", size, opt)
			}
		})
	}
}
