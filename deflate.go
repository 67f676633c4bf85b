package kassa

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Deflate and Inflate compress the JSON Kassa keeps at rest: events' data and the
// responses saved under idempotency keys. A frame is a format byte, the length of
// the JSON (uvarint) and the raw DEFLATE stream. The format names the preset
// dictionary the stream was written with; a dictionary never changes once shipped
// (a new one gets a new format byte, and Inflate keeps reading the old ones).
//
// Each documented object is about 1 KB of JSON whose field names and usual values
// are in the dictionary, so what is left to store is mostly ids, times and tokens.

// deflateFormatV1 is the format of frames written with deflateDictV1.
const deflateFormatV1 = 1

// maxInflated bounds the JSON a frame may claim, so a corrupt length never makes
// Inflate allocate more: far above any object the store keeps.
const maxInflated = 64 << 20

// ErrInflate is returned for a frame that does not inflate to what it says.
var ErrInflate = errors.New("kassa: compressed data is corrupt")

// deflateDict is deflateDictV1 as bytes, the history every stream starts from: the
// encoder indexes it once (deflateDictIndex), flate's reader takes it per frame.
// Never written to.
var deflateDict = []byte(deflateDictV1)

// inflater is a pooled DEFLATE reader and its source.
type inflater struct {
	r    io.ReadCloser
	src  bytes.Reader
	more [1]byte
}

// inflaters keeps idle readers (about 40 KB each).
var inflaters = sync.Pool{New: func() any {
	in := &inflater{}
	in.r = flate.NewReaderDict(&in.src, deflateDict)
	return in
}}

// Deflate appends the frame of src, a JSON document, to dst and returns it. With a
// nil dst the frame is allocated once (at most 9 bytes over its size). The stream
// is written by the encoder in deflateenc.go, which keeps the dictionary indexed
// (compress/flate's writer costs ~40 µs per document in set-up alone); any
// DEFLATE reader given deflateDict decodes it, as Inflate does.
func Deflate(dst, src []byte) []byte {
	e := getDeflateEncoder()
	stream := e.encode(src, deflateMaxPiece)
	n := 1 + binary.MaxVarintLen64 + len(stream)
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	dst = append(dst, deflateFormatV1)
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	dst = append(dst, stream...)
	putDeflateEncoder(e)
	return dst
}

// Inflate returns the JSON of a frame Deflate wrote. A frame that is not one (an
// unknown format, a bad length, a corrupt stream) is ErrInflate, never a panic.
func Inflate(frame []byte) ([]byte, error) {
	if len(frame) == 0 || frame[0] != deflateFormatV1 {
		return nil, fmt.Errorf("%w: unknown format", ErrInflate)
	}
	n, k := binary.Uvarint(frame[1:])
	stream := frame[1+max(k, 0):]
	// DEFLATE codes at most 258 bytes per bit; a larger claim is corrupt.
	if k <= 0 || n > maxInflated || n > uint64(len(stream))*8*258 {
		return nil, fmt.Errorf("%w: bad length", ErrInflate)
	}
	in := inflaters.Get().(*inflater)
	defer inflaters.Put(in)
	in.src.Reset(stream)
	if err := in.r.(flate.Resetter).Reset(&in.src, deflateDict); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInflate, err)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(in.r, out); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInflate, err)
	}
	if m, err := in.r.Read(in.more[:]); m != 0 || err != io.EOF {
		return nil, fmt.Errorf("%w: longer than its length", ErrInflate)
	}
	return out, nil
}
