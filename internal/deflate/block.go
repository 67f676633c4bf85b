package deflate

import (
	"encoding/binary"
	"math/bits"
)

// This file sizes and writes the three kinds of DEFLATE block (RFC 1951,
// section 3.2.3): dynamic Huffman codes (BTYPE 10) with the header that
// describes them, fixed codes (01) and stored bytes (00). The encoder
// (deflateenc.go) sizes all three and writes the smallest.

// deflateCodegenOrder is the order in which a dynamic header lists the lengths
// of the code-length code (RFC 1951 section 3.2.7): the rarely used ones last,
// so that they can be left off.
var deflateCodegenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// deflateCodegenExtra is how many extra bits follow code-length symbols 16, 17
// and 18 (repeat the previous length 3-6 times, repeat zero 3-10 or 11-138 times).
var deflateCodegenExtra = [19]uint8{16: 2, 17: 3, 18: 7}

// deflateBlock holds the dynamic codes of one block and the header that
// describes them, built by build and written by writeHeader.
type deflateBlock struct {
	huff     huffBuilder
	litLen   [deflateLitLenCodes]uint8 // code lengths of literals/lengths
	distLen  [deflateDistCodes]uint8   // code lengths of distances
	litCode  [deflateLitLenCodes]huffCode
	distCode [deflateDistCodes]huffCode

	numLit, numDist, numCodegen int // the header's HLIT+257, HDIST+1, HCLEN+4

	// The code lengths (litLen[:numLit] then distLen[:numDist]) as code-length
	// symbols: each is symbol | extra bits' value<<8.
	codegen     []uint16
	codegenFreq [19]uint32
	codegenLen  [19]uint8
	codegenCode [19]huffCode
}

// build fits Huffman codes to the block's symbol counts and prepares the
// header of a dynamic block; it returns the sizes in bits of the block with
// those codes (dynamic) and with the fixed codes (fixed), both without the
// extra bits of lengths and distances (deflateExtraBits), the same in both.
func (b *deflateBlock) build(litFreq *[deflateLitLenCodes]uint32, distFreq *[deflateDistCodes]uint32) (dynamic, fixed int) {
	dynamic = b.huff.build(litFreq[:], 15, b.litLen[:], b.litCode[:])
	fixed = 3
	for _, s := range b.huff.symbols() {
		fixed += int(litFreq[s]) * int(deflateFixedLit[s].len)
	}
	dynamic += b.huff.build(distFreq[:], 15, b.distLen[:], b.distCode[:])
	for _, f := range distFreq {
		fixed += int(f) * 5
	}
	b.numLit, b.numDist = deflateLitLenCodes, deflateDistCodes
	for b.numLit > 257 && b.litLen[b.numLit-1] == 0 {
		b.numLit--
	}
	for b.numDist > 1 && b.distLen[b.numDist-1] == 0 {
		b.numDist--
	}

	// Run-length code the lengths, both tables as one sequence.
	var seq [deflateLitLenCodes + deflateDistCodes]uint8
	n := copy(seq[:], b.litLen[:b.numLit])
	n += copy(seq[n:], b.distLen[:b.numDist])
	b.codegen = b.codegen[:0]
	clear(b.codegenFreq[:])
	for i := 0; i < n; {
		v, run := seq[i], deflateRunLen(seq[i:n])
		i += run
		if v == 0 {
			for run >= 11 {
				r := min(run, 138)
				b.addCodegen(18, r-11)
				run -= r
			}
			if run >= 3 {
				b.addCodegen(17, run-3)
				run = 0
			}
		} else {
			b.addCodegen(v, 0)
			run--
			for run >= 3 {
				r := min(run, 6)
				b.addCodegen(16, r-3)
				run -= r
			}
		}
		for ; run > 0; run-- {
			b.addCodegen(v, 0)
		}
	}
	dynamic += b.huff.build(b.codegenFreq[:], 7, b.codegenLen[:], b.codegenCode[:])
	b.numCodegen = len(deflateCodegenOrder)
	for b.numCodegen > 4 && b.codegenLen[deflateCodegenOrder[b.numCodegen-1]] == 0 {
		b.numCodegen--
	}
	dynamic += 3 + 5 + 5 + 4 + 3*b.numCodegen
	for s, x := range deflateCodegenExtra {
		dynamic += int(b.codegenFreq[s]) * int(x)
	}
	return dynamic, fixed
}

// deflateRunLen is how many bytes at the start of b (not empty) equal b[0],
// compared 8 at a time: the lengths of a block's unused symbols are long runs
// of zeros.
func deflateRunLen(b []byte) int {
	pattern := uint64(b[0]) * 0x0101010101010101
	n := 1
	for ; len(b)-n >= 8; n += 8 {
		if x := binary.LittleEndian.Uint64(b[n:]) ^ pattern; x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
	}
	for n < len(b) && b[n] == b[0] {
		n++
	}
	return n
}

// addCodegen adds code-length symbol sym, with extra bits' value x, to the header.
func (b *deflateBlock) addCodegen(sym uint8, x int) {
	b.codegen = append(b.codegen, uint16(sym)|uint16(x)<<8)
	b.codegenFreq[sym]++
}

// writeHeader writes the block's first bits and the header of its dynamic
// codes, as build prepared it.
func (b *deflateBlock) writeHeader(w *bitWriter, final bool) {
	w.writeBits(deflateBlockHeader(final, 2), 3)
	w.writeBits(uint64(b.numLit-257)|uint64(b.numDist-1)<<5|uint64(b.numCodegen-4)<<10, 14)
	for _, s := range deflateCodegenOrder[:b.numCodegen] {
		w.writeBits(uint64(b.codegenLen[s]), 3)
	}
	for _, g := range b.codegen {
		s := g & 0xff
		c := b.codegenCode[s]
		w.writeBits(uint64(c.code)|uint64(g>>8)<<c.len, uint(c.len+deflateCodegenExtra[s]))
	}
}

// deflateExtraBits is how many extra bits the block's lengths and distances
// take, the same with any codes.
func deflateExtraBits(litFreq *[deflateLitLenCodes]uint32, distFreq *[deflateDistCodes]uint32) int {
	size := 0
	for s, x := range deflateLengthExtra {
		size += int(litFreq[257+s]) * int(x)
	}
	for s, x := range deflateDistExtra {
		size += int(distFreq[s]) * int(x)
	}
	return size
}

// deflateStoredBits is the size in bits of n bytes as stored blocks (as many as
// 65535 bytes each takes) starting at bit offset off of a byte.
func deflateStoredBits(n int, off uint) int {
	blocks := max(1, (n+deflateMaxStored-1)/deflateMaxStored)
	pad := (8 - (int(off)+3)%8) % 8 // the first header's bits end mid-byte
	return pad + blocks*(3+32) + (blocks-1)*5 + 8*n
}

// writeStored writes data as stored blocks of at most 65535 bytes: 3 header bits,
// zeros to the byte boundary, the length and its complement, the bytes.
func (w *bitWriter) writeStored(data []byte, final bool) {
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), deflateMaxStored)
		w.writeBits(deflateBlockHeader(final && n == len(data), 0), 3)
		w.align()
		w.out = append(w.out, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		w.out = append(w.out, data[:n]...)
		data = data[n:]
	}
}
