// Package deflate compresses the JSON Kassa keeps at rest: events' data and the
// responses saved under idempotency keys. A frame is a format byte, the length of
// the JSON (uvarint) and a raw DEFLATE stream (RFC 1951). The format names the
// preset dictionary the stream was written with (dict.go); a dictionary never
// changes once shipped (a new one gets a new format byte, and Inflate keeps
// reading the old ones).
//
// Each object is about 1 KB of JSON whose field names and usual values are in the
// dictionary, so what is left to store is mostly ids, times and tokens.
//
// Streams are written by Kassa's own encoder (encoder.go: LZ77 over a hash chain
// that keeps the dictionary indexed once, lz77.go; dynamic or fixed Huffman blocks,
// huffman.go and block.go) and read by compress/flate. It stays hand-made because
// the well-kept library does the same job at a cost Kassa's creates feel, measured
// side by side (docs/performance.md, "After compression"): github.com/klauspost/
// compress/flate's StatelessDeflate with the same dictionary takes 2–5 times the
// encoder's few microseconds a document and writes frames 13–26 % larger, and
// Kassa's server CPU a SQLite create, with the library in its place, rose from 219–
// 251 to 250–288 µs (scripts/bench-steps.sh, alternating rounds), over the 15 %
// for which the project keeps a library. compress/flate's own writer costs ~40 µs
// a document in set-up alone. The tests check every frame against the library:
// compress/flate and klauspost's readers inflate it, and its size stays within
// reach of the library's level 9 (TestAgainstLevel9).
package deflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// formatV1 is the format of frames written with dictV1.
const formatV1 = 1

// maxInflated bounds the JSON a frame may claim, so a corrupt length never makes
// Inflate allocate more: far above any object the store keeps.
const maxInflated = 64 << 20

// ErrCorrupt is returned for a frame that does not inflate to what it says.
var ErrCorrupt = errors.New("deflate: compressed data is corrupt")

// dict is dictV1 as bytes, the history every stream starts from. Never written to.
var dict = []byte(dictV1)

// inflater is a pooled DEFLATE reader and its source.
type inflater struct {
	r    io.ReadCloser
	src  bytes.Reader
	more [1]byte
}

// inflaters keeps idle readers (about 40 KB each).
var inflaters = sync.Pool{New: func() any {
	in := &inflater{}
	in.r = flate.NewReaderDict(&in.src, dict)
	return in
}}

// Deflate appends the frame of src, a JSON document, to dst and returns it. With a
// nil dst the frame is allocated once (at most 9 bytes over its size); any DEFLATE
// reader given the dictionary decodes the stream, as Inflate does.
func Deflate(dst, src []byte) []byte {
	e := getDeflateEncoder()
	stream := e.encode(src, deflateMaxPiece)
	n := 1 + binary.MaxVarintLen64 + len(stream)
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	dst = append(dst, formatV1)
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	dst = append(dst, stream...)
	putDeflateEncoder(e)
	return dst
}

// Inflate returns the JSON of a frame Deflate wrote. A frame that is not one (an
// unknown format, a bad length, a corrupt stream) is ErrCorrupt, never a panic.
func Inflate(frame []byte) ([]byte, error) {
	if len(frame) == 0 || frame[0] != formatV1 {
		return nil, fmt.Errorf("%w: unknown format", ErrCorrupt)
	}
	n, k := binary.Uvarint(frame[1:])
	stream := frame[1+max(k, 0):]
	// DEFLATE codes at most 258 bytes per bit; a larger claim is corrupt.
	if k <= 0 || n > maxInflated || n > uint64(len(stream))*8*258 {
		return nil, fmt.Errorf("%w: bad length", ErrCorrupt)
	}
	in := inflaters.Get().(*inflater)
	defer inflaters.Put(in)
	in.src.Reset(stream)
	if err := in.r.(flate.Resetter).Reset(&in.src, dict); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(in.r, out); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if m, err := in.r.Read(in.more[:]); m != 0 || err != io.EOF {
		return nil, fmt.Errorf("%w: longer than its length", ErrCorrupt)
	}
	return out, nil
}
