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
// Streams are written by github.com/klauspost/compress/flate's StatelessDeflate
// with the dictionary and read by compress/flate. Kassa wrote them with its own
// encoder (LZ77 and Huffman, 1,240 lines) until issue 38; its frames are the same
// format, so rows it wrote read as before (testdata/hand.txt holds some,
// TestReadsHandFrames reads them). Measured side by side (docs/performance.md,
// "After compression"): the library takes 2–5 times the hand encoder's few
// microseconds a document and its frames are 13–26 % larger (913 B of invoice
// JSON: 117 → 158 B; 5 % more bytes a stored invoice), while Kassa's CPU a create
// moved within the machine's noise on both engines (SQLite, 5 alternating rounds:
// median 323 → 329 µs). That is within the 15 % for which the project keeps a
// library over a hand-made part.
package deflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	kflate "github.com/klauspost/compress/flate"
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

// frameWriter appends what StatelessDeflate writes to a frame.
type frameWriter struct{ b []byte }

// Write appends p.
func (w *frameWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Deflate appends the frame of src, a JSON document, to dst and returns it.
func Deflate(dst, src []byte) []byte {
	w := frameWriter{b: slices.Grow(dst, 1+binary.MaxVarintLen64+len(src)/4+64)}
	w.b = append(w.b, formatV1)
	w.b = binary.AppendUvarint(w.b, uint64(len(src)))
	// Writing to a frameWriter cannot fail, and StatelessDeflate fails only
	// when its writer does.
	_ = kflate.StatelessDeflate(&w, src, true, dict)
	return w.b
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
