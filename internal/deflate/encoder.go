package deflate

import (
	"encoding/binary"
	"runtime"
	"slices"
)

// This file is a DEFLATE (RFC 1951) encoder made for Deflate: small JSON
// documents compressed against a preset dictionary. compress/flate's writer
// clears about 640 KB of hash tables, hashes the whole dictionary and builds its
// Huffman tables on every Reset, which cost about 40 µs per document; this one
// hashes the dictionary once (deflateDictIndex) and per call touches only what
// the document needs, while coding about as small (BenchmarkDeflateFlate9).
//
// The pieces: lz77 (deflatelz77.go) turns the input into tokens, literals and
// matches; flushBlock codes a block of them with the smallest of dynamic
// Huffman codes (deflateblock.go), the fixed codes or a stored copy; the codes
// come from huffBuilder (deflatehuff.go), the bits go out through bitWriter
// (deflatebits.go). The output is a raw DEFLATE stream that any inflater
// decodes given the same dictionary.

// deflateBlockTokens is how many tokens a block holds at most; a longer input
// is coded as several blocks, each with codes fitted to its own tokens.
const deflateBlockTokens = 1 << 14

// deflateMaxPiece is the most input one run of lz77 covers. Positions are kept
// in 32 bits, so a longer input (over 1 GB) is cut into pieces, each matched
// only within itself (the dictionary only in the first).
const deflateMaxPiece = 1 << 30

// A token is a literal byte (below 256) or, with tokenMatch set, a match:
// length-3 in bits 16-23 and distance-1 in bits 0-15.
const tokenMatch = 1 << 31

// deflateEncoder is the state of one deflation, reused from one call to the next
// (deflateEncoders). Its hash chains are never cleared: an entry of head counts
// only if it is at least stamp, which each call raises past all it wrote.
type deflateEncoder struct {
	head  [1 << lzHashBits]lzBucket // the chain heads
	prev  [deflateWindow]int32      // prev[i%deflateWindow]: the position before i on i's chain
	stamp uint32                    // head's entries below it are stale (from earlier calls)
	dict  *lzDict                   // the history before the input, or nil

	repDist int   // the distance of the last match
	repEnd  int32 // the position right after the last match's source

	piece      []byte                     // the input lz77 is working on
	blockStart int                        // where in piece the current block's bytes begin
	blockLen   int                        // how many bytes of piece the block's tokens cover
	tokens     [deflateBlockTokens]uint32 // the block's tokens: ntokens of them
	ntokens    int
	litFreq    [deflateLitLenCodes]uint32
	distFreq   [deflateDistCodes]uint32

	block deflateBlock // the codes of the block being written
	bw    bitWriter    // the stream
}

// deflateEncoders keeps the idle encoders, at most one per CPU: a Deflate runs
// for a few microseconds without blocking, so more than one per CPU rarely run
// at once. A sync.Pool empties at GCs and would make new ones (about 450 KB
// each, mostly hash chains, and a new one copies the dictionary's chain heads);
// these are kept.
var deflateEncoders = make(chan *deflateEncoder, runtime.GOMAXPROCS(0))

// getDeflateEncoder returns an idle encoder or a new one.
func getDeflateEncoder() *deflateEncoder {
	select {
	case e := <-deflateEncoders:
		return e
	default:
		e := &deflateEncoder{stamp: 1}
		for h, p := range deflateDictIndex().head {
			e.head[h].dict = p
		}
		e.startBlock()
		return e
	}
}

// putDeflateEncoder keeps e for the next call unless as many are idle already.
// The output buffer of a large document is not kept.
func putDeflateEncoder(e *deflateEncoder) {
	if cap(e.bw.out) > 64<<10 {
		e.bw.out = nil
	}
	select {
	case deflateEncoders <- e:
	default:
	}
}

// encode returns the raw DEFLATE stream of src with dict as its history,
// in e's buffer (valid until e is used again). Pieces of at most maxPiece bytes
// are matched separately (deflateMaxPiece; tests pass less).
func (e *deflateEncoder) encode(src []byte, maxPiece int) []byte {
	e.bw.reset()
	dict := deflateDictIndex()
	start := 0
	for {
		end := start + min(len(src)-start, maxPiece)
		e.lz77(src[start:end], dict, end == len(src))
		if start, dict = end, nil; start == len(src) {
			break
		}
	}
	e.bw.align()
	return e.bw.out
}

// startBlock empties the token list and the symbol counts for a new block.
func (e *deflateEncoder) startBlock() {
	e.ntokens = 0
	e.blockLen = 0
	clear(e.litFreq[:])
	clear(e.distFreq[:])
	e.litFreq[deflateEOB] = 1 // every block ends with it
}

// emitLiteral adds the literal b to the block, which must have room for it:
// lz77 writes the block out when it is full (blockFull).
func (e *deflateEncoder) emitLiteral(b byte) {
	e.tokens[e.ntokens] = uint32(b)
	e.ntokens++
	e.litFreq[b]++
	e.blockLen++
}

// emitMatch adds a match of length bytes dist back to the block, which must
// have room for it.
func (e *deflateEncoder) emitMatch(length, dist int) {
	e.tokens[e.ntokens] = tokenMatch | uint32(length-3)<<16 | uint32(dist-1)
	e.ntokens++
	e.litFreq[257+int(deflateLengthSym[length-3])]++
	e.distFreq[deflateDistSymbol(dist-1)]++
	e.blockLen += length
}

// blockFull reports whether the block has no room for another token.
func (e *deflateEncoder) blockFull() bool { return e.ntokens == deflateBlockTokens }

// flushBlock writes the block's tokens as the smallest of three blocks: dynamic
// Huffman codes fitted to them, the fixed codes (only if smaller), or the bytes
// stored as they are (input that does not compress). final marks the stream's
// last block. The next block starts empty.
func (e *deflateEncoder) flushBlock(final bool) {
	data := e.piece[e.blockStart : e.blockStart+e.blockLen]
	b := &e.block
	dynamic, fixed := b.build(&e.litFreq, &e.distFreq)
	extra := deflateExtraBits(&e.litFreq, &e.distFreq)
	stored := deflateStoredBits(len(data), e.bw.bitOffset())
	switch {
	case stored < min(dynamic, fixed)+extra:
		e.bw.writeStored(data, final)
	case fixed < dynamic:
		e.bw.writeBits(deflateBlockHeader(final, 1), 3)
		e.writeTokens(deflateFixedLit, deflateFixedDist)
	default:
		b.writeHeader(&e.bw, final)
		e.writeTokens(b.litCode[:], b.distCode[:])
	}
	e.blockStart += e.blockLen
	e.startBlock()
}

// deflateBlockHeader is a block's first 3 bits: BFINAL, then BTYPE (0 stored,
// 1 fixed codes, 2 dynamic codes).
func deflateBlockHeader(final bool, btype uint64) uint64 {
	if final {
		return 1 | btype<<1
	}
	return btype << 1
}

// writeTokens writes the block's tokens and its end with the codes lit (for
// literals and lengths) and dist. A token takes at most 48 bits (a 15-bit
// length code, 5 extra bits, a 15-bit distance code, 13 extra bits), so with
// fewer than 8 bits pending before it, a 64-bit accumulator holds it whole, and
// after it every whole byte goes to the output at once, 8 bytes stored and as
// many kept as are complete: no branch on how full the accumulator is.
func (e *deflateEncoder) writeTokens(lit, dist []huffCode) {
	w := &e.bw
	w.flushBytes()
	out := slices.Grow(w.out, 6*e.ntokens+8+8)
	acc, nbits := w.acc, w.nbits
	for _, t := range e.tokens[:e.ntokens] {
		if t < tokenMatch {
			c := lit[t]
			acc |= uint64(c.code) << nbits
			nbits += uint(c.len)
		} else {
			length3, dist1 := int(t>>16&0xff), int(t&0xffff)
			ls := deflateLengthSym[length3]
			c := lit[257+int(ls)]
			x := uint64(length3 + 3 - int(deflateLengthBase[ls]))
			acc |= (uint64(c.code) | x<<c.len) << nbits
			nbits += uint(c.len + deflateLengthExtra[ls])
			ds := deflateDistSymbol(dist1)
			c = dist[ds]
			x = uint64(dist1 + 1 - int(deflateDistBase[ds]))
			acc |= (uint64(c.code) | x<<c.len) << nbits
			nbits += uint(c.len + deflateDistExtra[ds])
		}
		n := len(out)
		binary.LittleEndian.PutUint64(out[n:n+8], acc)
		out = out[:n+int(nbits/8)]
		acc >>= nbits &^ 7
		nbits &= 7
	}
	w.out, w.acc, w.nbits = out, acc, nbits
	w.writeCode(lit[deflateEOB])
}
