package deflate

// This file holds the fixed parts of the DEFLATE format (RFC 1951, section 3.2)
// that the encoder in deflateenc.go needs: how lengths and distances map to
// symbols and extra bits, the fixed Huffman codes, and a writer of the bit
// stream. Nothing here changes after package init.

// DEFLATE's limits.
const (
	deflateMinMatch    = 3     // the shortest match the format can code
	deflateMaxMatch    = 258   // the longest match the format can code
	deflateWindow      = 32768 // the farthest a match may point back
	deflateEOB         = 256   // the end-of-block symbol of the literal/length code
	deflateLitLenCodes = 286   // literal/length symbols in use: 0-255, EOB, 257-285
	deflateDistCodes   = 30    // distance symbols in use
	deflateMaxStored   = 65535 // the most bytes one stored block holds
)

// deflateLengthBase and deflateLengthExtra give, for length symbol 257+i, the
// shortest length it codes and how many extra bits follow it.
var (
	deflateLengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	deflateLengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
)

// deflateDistBase and deflateDistExtra give, for distance symbol i, the shortest
// distance it codes and how many extra bits follow it.
var (
	deflateDistBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	deflateDistExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
		7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// deflateLengthSym maps length-3 (0-255) to its length symbol minus 257.
var deflateLengthSym [256]uint8

// deflateDistSym maps a distance-1 to its distance symbol: entries 0-255 are for
// distances 1-256, entries 256-511 for distance-1 >> 7 (distances 257-32768),
// the table zlib uses.
var deflateDistSym [512]uint8

// deflateFixedLit and deflateFixedDist are the fixed Huffman codes of BTYPE=01.
var deflateFixedLit, deflateFixedDist []huffCode

func init() {
	for sym := range deflateLengthBase {
		first := int(deflateLengthBase[sym]) - 3
		// 258 is both 227+31 (symbol 284) and symbol 285's; 285 comes last and wins.
		for l := first; l < first+1<<deflateLengthExtra[sym] && l < 256; l++ {
			deflateLengthSym[l] = uint8(sym)
		}
	}
	for sym := range deflateDistBase {
		first := int(deflateDistBase[sym]) - 1
		for d := first; d < first+1<<deflateDistExtra[sym]; d++ {
			if d < 256 {
				deflateDistSym[d] = uint8(sym)
			} else {
				deflateDistSym[256+d>>7] = uint8(sym)
			}
		}
	}
	var lit [288]uint8
	for sym := range lit {
		switch {
		case sym < 144:
			lit[sym] = 8
		case sym < 256:
			lit[sym] = 9
		case sym < 280:
			lit[sym] = 7
		default:
			lit[sym] = 8
		}
	}
	dist := [30]uint8{}
	for i := range dist {
		dist[i] = 5
	}
	var all [288]uint16
	for s := range all {
		all[s] = uint16(s)
	}
	deflateFixedLit, deflateFixedDist = make([]huffCode, 288), make([]huffCode, 30)
	huffCanonical(lit[:], all[:], deflateFixedLit)
	huffCanonical(dist[:], all[:30], deflateFixedDist)
}

// deflateDistSymbol returns the distance symbol of dist-1 (0-32767).
func deflateDistSymbol(dist1 int) int {
	if dist1 < 256 {
		return int(deflateDistSym[dist1])
	}
	return int(deflateDistSym[256+dist1>>7])
}

// bitWriter appends a DEFLATE bit stream to out: bits are packed from the least
// significant bit of each byte up, as RFC 1951 section 3.1.1 orders them.
type bitWriter struct {
	out   []byte
	acc   uint64 // bits not yet in out, the first written lowest
	nbits uint   // how many bits acc holds; under 32 between calls
}

// reset empties the writer, keeping the capacity of out.
func (w *bitWriter) reset() {
	w.out, w.acc, w.nbits = w.out[:0], 0, 0
}

// writeBits writes the n low bits of v, lowest first; n is at most 32 and v has
// no bits above them. Whole 32-bit words go to out as they fill.
func (w *bitWriter) writeBits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	if w.nbits >= 32 {
		a := w.acc
		w.out = append(w.out, byte(a), byte(a>>8), byte(a>>16), byte(a>>24))
		w.acc >>= 32
		w.nbits -= 32
	}
}

// writeCode writes a Huffman code (bit-reversed already, see huffCode).
func (w *bitWriter) writeCode(c huffCode) {
	w.writeBits(uint64(c.code), uint(c.len))
}

// align writes zero bits up to the next byte boundary and flushes every whole
// byte to out, as a stored block's LEN and the end of the stream need.
func (w *bitWriter) align() {
	for w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= min(w.nbits, 8)
	}
	w.acc = 0
}

// flushBytes moves the whole bytes of acc to out, leaving fewer than 8 bits.
func (w *bitWriter) flushBytes() {
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// bitOffset is where in its byte the next bit goes (0-7).
func (w *bitWriter) bitOffset() uint { return w.nbits % 8 }
