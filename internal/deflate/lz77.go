package deflate

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// This file is the LZ77 half of the encoder: it finds, for each position of the
// input, the longest earlier occurrence of what follows (a match), looking back
// through the input and, before it, the preset dictionary, and turns the input
// into literals and matches (tokens, see deflateenc.go).
//
// Positions: the input's bytes are at 0, 1, ...; the dictionary ends right before
// position 0, so its bytes are at -len(dict) to -1, and a match from position i
// back to position c has the distance i-c however far into the dictionary c is.
//
// Candidates are found by hashing the 4 bytes at each position. Positions with the
// same hash are chained from the newest to the oldest: the input's chains (built
// per call, in the encoder) end where the dictionary's (built once, on first use)
// begin. Before the chain, longestMatch tries where the last match suggests the
// next one is (repeatAt): what finds most of a JSON document made from the
// dictionary's templates.

// Tuning of the match search, the knobs zlib's levels turn. The values are
// chosen for JSON of 1-2 KB against the dictionary (TestDeflateSize): within a
// percent or two of compress/flate at BestCompression, which looks at up to 4096
// candidates per position, at a fraction of the time.
const (
	lzMaxChain  = 4    // chain candidates looked at per position (besides repeatAt's), at most
	lzNiceLen   = 32   // a match this long ends the search
	lzMaxLazy   = 16   // after a match this long, take it without looking one byte on
	lzMaxInsert = 8    // the positions inside a match this long or shorter go on their chains
	lzFar4      = 4096 // a 4-byte match farther than this costs more than its literals
)

// lzHashBits is the size of the hash tables: 2^lzHashBits chain heads.
const lzHashBits = 15

// lzNone marks the end of a chain: no candidate (farther than any window).
const lzNone = -1 << 30

// lzHash hashes the 4 bytes u (little endian) to a chain head's index.
func lzHash(u uint32) uint32 { return (u * 0x1e35a7bd) >> (32 - lzHashBits) }

// lzLoad4 is the 4 bytes at b[i:], little endian.
func lzLoad4(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// lzDict is the dictionary's hash chains, built once (deflateDictIndex) and
// never written to after: every encoder reads it at once. Its positions are
// as the input sees them: -len(data) for the dictionary's first byte.
type lzDict struct {
	data []byte
	head [1 << lzHashBits]int32 // the newest position with each hash, or lzNone
	prev []int32                // prev[p+len(data)]: the next older position with p's hash, or lzNone
}

// deflateDictIndex indexes dict, the history every frame starts from, on
// first use: a program that never deflates does not pay for it.
var deflateDictIndex = sync.OnceValue(func() *lzDict { return newLZDict(dict) })

// newLZDict indexes dict, which must be shorter than the window.
func newLZDict(dict []byte) *lzDict {
	if len(dict) >= deflateWindow {
		panic("kassa: a DEFLATE dictionary must be shorter than the window")
	}
	d := &lzDict{data: dict, prev: make([]int32, len(dict))}
	for h := range d.head {
		d.head[h] = lzNone
	}
	for p := range d.prev {
		d.prev[p] = lzNone
		if p+4 <= len(dict) { // the last 3 positions would hash bytes of the input
			h := lzHash(lzLoad4(dict, p))
			d.prev[p], d.head[h] = d.head[h], int32(p-len(dict))
		}
	}
	return d
}

// lzBucket is a chain head of an encoder: the newest input position with its
// hash (as stamp+position) and, beside it to be read with it, the dictionary's.
type lzBucket struct {
	input uint32 // stamp+position; below the encoder's stamp, from an earlier call
	dict  int32  // deflateDictIndex().head's entry
}

// chainHead is the newest position before the current one with hash h: the
// input's if this call saw one, else the dictionary's (when it is in use).
func (e *deflateEncoder) chainHead(h uint32) int32 {
	b := e.head[h]
	if b.input >= e.stamp {
		return int32(b.input - e.stamp)
	}
	if e.dict != nil {
		return b.dict
	}
	return lzNone
}

// chainNext is the position before c on c's chain.
func (e *deflateEncoder) chainNext(c int32) int32 {
	if c >= 0 {
		return e.prev[c%deflateWindow]
	}
	return e.dict.prev[int(c)+len(e.dict.data)]
}

// insert puts input position i, with hash h, at the head of its chain; older
// is the chain's head before (chainHead(h)). The window holds the chain links
// of the last deflateWindow positions, which is as far as matches reach.
func (e *deflateEncoder) insert(h uint32, i int, older int32) {
	e.prev[i%deflateWindow] = older
	e.head[h].input = e.stamp + uint32(i)
}

// longestMatch finds the longest match for src[i:] longer than best (at least
// 3) and returns its length and distance (0, 0 if none is longer). It looks
// first where the last match suggests (repeatAt), then at the candidates on the
// chain starting at c.
func (e *deflateEncoder) longestMatch(src []byte, i int, c int32, best int) (length, dist int) {
	maxLen := min(deflateMaxMatch, len(src)-i)
	if best >= maxLen {
		return 0, 0
	}
	cur := src[i : i+maxLen]
	// A longer match has these 4 bytes too, which rules out most candidates
	// before comparing them from the start.
	tail := lzLoad4(cur, best-3)
	minPos := int32(max(i-deflateWindow, 0)) // the oldest position in reach
	if e.dict != nil {
		minPos = int32(max(i-deflateWindow, -len(e.dict.data)))
	}
	chain := lzMaxChain
	for k := -2; c >= minPos && chain > 0; k++ {
		cand := c
		if k < 0 {
			// The places the last match suggests, while k is negative.
			if cand = e.repeatAt(i, k); cand < minPos || cand >= int32(i) || (k == -1 && cand == int32(i-e.repDist)) {
				continue // out of reach, or as k = -2 (no literal since the last match)
			}
		}
		n := 0
		if cand >= 0 {
			if lzLoad4(src, int(cand)+best-3) == tail {
				n = lzMatchLen(cur, src[cand:])
			}
		} else if d := e.dict.data[int(cand)+len(e.dict.data):]; len(d) <= best || lzLoad4(d, best-3) == tail {
			n = dictMatchLen(src, cur, d)
		}
		if n > best && (n > 4 || i-int(cand) <= lzFar4) {
			best, length, dist = n, n, i-int(cand)
			if n >= lzNiceLen || n == maxLen {
				break
			}
			tail = lzLoad4(cur, best-3)
		}
		if k >= 0 {
			next := e.chainNext(c)
			if next >= c {
				break // cannot happen; a chain only goes back
			}
			c = next
			chain--
		}
	}
	return length, dist
}

// repeatAt is where, after the last match, the next is most likely to come
// from when the input is the dictionary's JSON with other values: k = -2 is at
// the same distance (a value of the same length replaced, as a time), k = -1
// right after the last match's source (the dictionary's empty value of an id
// filled in).
func (e *deflateEncoder) repeatAt(i, k int) int32 {
	if k == -2 {
		return int32(i - e.repDist)
	}
	return e.repEnd
}

// dictMatchLen is how many bytes of cur match d, the dictionary from a
// candidate on, going on into the input (src) past the dictionary's end.
func dictMatchLen(src, cur, d []byte) int {
	if len(d) >= len(cur) {
		return lzMatchLen(cur, d)
	}
	n := lzMatchLen(cur[:len(d)], d)
	if n == len(d) {
		n += lzMatchLen(cur[n:], src)
	}
	return n
}

// lzMatchLen is the length of the common prefix of a and b, b at least as long
// as a; 8 bytes at a time.
func lzMatchLen(a, b []byte) int {
	b = b[:len(a)]
	n := 0
	for ; len(a)-n >= 8; n += 8 {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
	}
	for n < len(a) && a[n] == b[n] {
		n++
	}
	return n
}

// lz77 turns src, one piece of the input (deflateEncoder.encode), into tokens,
// with dict as the history before it: deflateDictIndex(), whose chain heads the
// encoder's buckets carry, or nil for none. Matching is lazy: a match found
// at i is taken only if the match at i+1 is no longer, otherwise src[i] goes as
// a literal and the match at i+1 is weighed the same way. Every position looked
// at is put on its chain, and those inside short matches. Blocks are written as
// the tokens fill up, the last one when src ends (final: as the stream's last).
func (e *deflateEncoder) lz77(src []byte, dict *lzDict, final bool) {
	if e.stamp > ^uint32(0)-uint32(len(src)) {
		for h := range e.head { // once per 4 GB deflated: stamps start over
			e.head[h].input = 0
		}
		e.stamp = 1
	}
	e.dict, e.piece, e.blockStart = dict, src, 0
	e.repDist, e.repEnd = 0, lzNone
	n := len(src)
	prevLen, prevDist := 0, 0 // the match at i-1 (prevLen 0: none)
	pending := false          // whether src[i-1] is not yet in a token
	for i := 0; i < n; {
		if e.blockFull() {
			e.flushBlock(false)
		}
		curLen, curDist := 0, 0
		if i+4 <= n {
			h := lzHash(lzLoad4(src, i))
			c := e.chainHead(h)
			if c >= int32(i-deflateWindow) && prevLen < lzMaxLazy {
				curLen, curDist = e.longestMatch(src, i, c, max(prevLen, deflateMinMatch))
			}
			e.insert(h, i, c)
		}
		if prevLen > 0 && curLen <= prevLen {
			// The match at i-1 wins: take it, and chain the positions it
			// covers if it is short (a long one is most likely the dictionary's
			// text, found again there).
			e.emitMatch(prevLen, prevDist)
			end := i - 1 + prevLen
			e.repDist, e.repEnd = prevDist, int32(end-prevDist)
			if prevLen <= lzMaxInsert {
				for j := i + 1; j < end && j+4 <= n; j++ {
					h := lzHash(lzLoad4(src, j))
					e.insert(h, j, e.chainHead(h))
				}
			}
			i, prevLen, pending = end, 0, false
			continue
		}
		if pending {
			e.emitLiteral(src[i-1])
		}
		pending, prevLen, prevDist = true, curLen, curDist
		i++
	}
	if pending {
		if e.blockFull() {
			e.flushBlock(false)
		}
		e.emitLiteral(src[n-1])
	}
	e.flushBlock(final)
	e.stamp += uint32(n)
	e.dict, e.piece = nil, nil
}
