package deflate

import "math/bits"

// This file builds the Huffman codes of a DEFLATE block: from how often each
// symbol occurs, the length of each symbol's code, no longer than DEFLATE allows
// (15 bits for literals/lengths and distances, 7 for the code-length code), and
// the codes themselves, which follow from the lengths (huffCanonical).

// huffMaxSymbols is the size of the largest alphabet coded: literal/length
// symbols including the two (286, 287) DEFLATE reserves.
const huffMaxSymbols = 288

// huffCode is one symbol's code: len bits, stored reversed so that writing code
// lowest bit first sends the Huffman code's most significant bit first.
type huffCode struct {
	code uint16
	len  uint8
}

// huffBuilder is the scratch space of build, kept in each encoder so that
// building codes allocates nothing.
type huffBuilder struct {
	syms  [huffMaxSymbols]uint16 // the symbols with a code, in increasing order
	nsyms int                    // how many of syms are in use
	used  [huffMaxSymbols]uint64 // the used symbols, frequency<<16 | symbol
	tmp   [huffMaxSymbols]uint64 // huffSort's other buffer
	count [256]int32             // huffSort's counts
	depth [huffMaxSymbols]int    // frequencies, then code lengths (huffDepths)
}

// build fits a Huffman code to freq (freq[s]: how often symbol s occurs) and
// returns the size of the coded symbols in bits. It sets lengths[s] to the code
// length of each symbol (0 for unused ones) and codes[s] to the code of each
// symbol with a length; the codes of the others are not written (no symbol
// that does not occur is ever written). freq, lengths and codes are as long as
// each other, from 2 to huffMaxSymbols long. See lengths for maxBits.
func (b *huffBuilder) build(freq []uint32, maxBits int, lengths []uint8, codes []huffCode) int {
	b.lengths(freq, maxBits, lengths)
	syms := b.symbols()
	huffCanonical(lengths, syms, codes)
	size := 0
	for _, s := range syms {
		size += int(freq[s]) * int(lengths[s])
	}
	return size
}

// symbols are the symbols given a length by the last build or lengths call, in
// increasing order.
func (b *huffBuilder) symbols() []uint16 { return b.syms[:b.nsyms] }

// lengths sets lengths[s] to the code length of symbol s given freq[s], how
// often it occurs (0: unused, which gets length 0). No length exceeds maxBits
// and the code is complete (its Kraft sum is exactly 1), as compress/flate's
// reader insists: when fewer than two symbols are used, two get length 1 (the
// used one and a neighbour). freq and lengths are as long as each other, between
// 2 and huffMaxSymbols, and maxBits leaves room for them (2^maxBits ≥ len(freq)).
func (b *huffBuilder) lengths(freq []uint32, maxBits int, lengths []uint8) {
	clear(lengths)
	k, maxFreq := 0, uint32(0)
	for s, f := range freq {
		// Without a branch (which unused symbols, most of them in a small block,
		// would make unpredictable): written always, kept if f is not 0.
		b.syms[k] = uint16(s)
		b.used[k] = uint64(f)<<16 | uint64(s)
		k += int((uint64(f) + 1<<32 - 1) >> 32)
		maxFreq = max(maxFreq, f)
	}
	b.nsyms = k
	used := b.used[:k]
	if len(used) < 2 {
		s, other := 0, 1
		if len(used) == 1 {
			s = int(used[0] & 0xffff)
			if s > 0 {
				other = s - 1
			}
		}
		lengths[s], lengths[other] = 1, 1
		b.syms[0], b.syms[1], b.nsyms = uint16(min(s, other)), uint16(max(s, other)), 2
		return
	}
	used = huffSort(used, b.tmp[:k], &b.count, maxFreq) // rarest first
	depth := b.depth[:len(used)]
	for i, u := range used {
		depth[i] = int(u >> 16)
	}
	huffDepths(depth)

	// count[l] is how many symbols get length l; deeper ones are counted at
	// maxBits, then huffLimit makes the code complete again.
	var count [16]int
	for _, d := range depth {
		count[min(d, maxBits)]++
	}
	if depth[0] > maxBits {
		huffLimit(count[:maxBits+1])
	}
	// The rarest symbols take the longest codes.
	i := 0
	for l := maxBits; l >= 1; l-- {
		for range count[l] {
			lengths[used[i]&0xffff] = uint8(l)
			i++
		}
	}
}

// huffSort sorts used (frequency<<16 | symbol, in increasing symbol order) by
// frequency, symbols with equal frequencies staying in order, and returns it
// (in used or in tmp, a buffer as long); maxFreq is the highest frequency and
// counts scratch space. It is an LSD radix sort, a pass per byte of maxFreq,
// each counting only the byte values up to maxFreq's: for the hundred or so
// symbols of a block, far faster than comparisons, whose outcomes the processor
// cannot predict.
func huffSort(used, tmp []uint64, counts *[256]int32, maxFreq uint32) []uint64 {
	for shift := uint(16); ; shift += 8 {
		rest := maxFreq >> (shift - 16) // the bytes of maxFreq not yet sorted by
		start := counts[:min(rest, 255)+1]
		clear(start)
		for _, u := range used {
			start[byte(u>>shift)]++
		}
		sum := int32(0)
		for d, n := range start { // counts to where each byte value's run begins
			start[d] = sum
			sum += n
		}
		for _, u := range used {
			d := byte(u >> shift)
			tmp[start[d]] = u
			start[d]++
		}
		used, tmp = tmp, used
		if rest <= 255 {
			return used
		}
	}
}

// huffDepths replaces a, symbol frequencies sorted in increasing order (at least
// two), with the depths of those symbols in a Huffman tree, that is their
// unlimited optimal code lengths (non-increasing). It is Moffat and Katajainen's
// in-place algorithm ("In-place calculation of minimum-redundancy codes", 1995):
// no heap, no allocation, linear time once sorted.
func huffDepths(a []int) {
	n := len(a)
	// Pass 1, left to right: combine the two lightest of the next leaf and the
	// next unused internal node, as Huffman's algorithm does. a[next] becomes
	// internal node next's weight; a consumed internal node's slot becomes the
	// index of its parent.
	a[0] += a[1]
	root, leaf := 0, 2
	for next := 1; next < n-1; next++ {
		if leaf >= n || a[root] < a[leaf] {
			a[next] = a[root]
			a[root] = next
			root++
		} else {
			a[next] = a[leaf]
			leaf++
		}
		if leaf >= n || (root < next && a[root] < a[leaf]) {
			a[next] += a[root]
			a[root] = next
			root++
		} else {
			a[next] += a[leaf]
			leaf++
		}
	}
	// Pass 2, right to left: each internal node's depth is its parent's plus one
	// (the root, n-2, is at depth 0).
	a[n-2] = 0
	for next := n - 3; next >= 0; next-- {
		a[next] = a[a[next]] + 1
	}
	// Pass 3, right to left: at each depth, the nodes not taken by internal
	// nodes are leaves; the heaviest leaves get the shallowest depths.
	avail, used, depth := 1, 0, 0
	root, next := n-2, n-1
	for avail > 0 {
		for root >= 0 && a[root] == depth {
			used++
			root--
		}
		for avail > used {
			a[next] = depth
			next--
			avail--
		}
		avail, used, depth = 2*used, 0, depth+1
	}
}

// huffLimit makes count (count[l]: symbols of length l, lengths 1 to
// len(count)-1, the longest ones already cut to that maximum) a complete code
// again. Cutting lengths overfills the code (Kraft sum above 1); each step
// takes a code of the maximum length away and splits the longest shorter code
// into two one bit longer, which lowers the sum by one maximum-length code's
// share and keeps the number of symbols, until the sum is 1 again. miniz limits
// lengths so (zlib much alike): not optimal, close to it, and needed only for
// skewed frequencies over large blocks. The rarest symbols then take the longest
// codes, as before.
func huffLimit(count []int) {
	maxBits := len(count) - 1
	total := 0 // the Kraft sum in units of 2^-maxBits
	for l := 1; l <= maxBits; l++ {
		total += count[l] << (maxBits - l)
	}
	for ; total > 1<<maxBits; total-- {
		count[maxBits]--
		for l := maxBits - 1; l > 0; l-- {
			if count[l] > 0 {
				count[l]--
				count[l+1] += 2
				break
			}
		}
	}
}

// huffCanonical assigns the canonical codes of RFC 1951 section 3.2.2, given
// the code lengths, to the symbols syms (in increasing order, all those with a
// length): codes of one length are consecutive in symbol order, shorter codes
// before longer ones.
func huffCanonical(lengths []uint8, syms []uint16, codes []huffCode) {
	var count [16]uint16
	for _, s := range syms {
		count[lengths[s]]++
	}
	count[0] = 0 // no code
	var next [16]uint16
	code := uint16(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for _, s := range syms {
		l := lengths[s]
		codes[s] = huffCode{code: bits.Reverse16(next[l]) >> (16 - l), len: l}
		next[l]++
	}
}
