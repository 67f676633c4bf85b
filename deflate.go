package kassa

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
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

// deflateLevel is the level frames are written at. Levels 2 to 9 cost the same on
// documents this small (the writer's reset dominates) and 9 is the smallest;
// BestSpeed (1) ignores a preset dictionary. See docs/performance.md.
const deflateLevel = flate.BestCompression

// maxInflated bounds the JSON a frame may claim, so a corrupt length never makes
// Inflate allocate more: far above any object the store keeps.
const maxInflated = 64 << 20

// ErrInflate is returned for a frame that does not inflate to what it says.
var ErrInflate = errors.New("kassa: compressed data is corrupt")

// deflateDict is deflateDictV1 as the flate package takes it; never written to.
var deflateDict = []byte(deflateDictV1)

// deflater is a DEFLATE writer with its dictionary preset. A flate.Writer takes
// about 800 KB (its hash tables), so writers are reset and reused.
type deflater struct {
	w   *flate.Writer
	out bytes.Buffer
}

// deflaters keeps the idle writers, at most one per CPU: a Deflate runs for tens
// of microseconds without blocking, so more than one per CPU rarely run at once.
// A sync.Pool empties at GCs and would make new ones (about 4 MB more heap
// under a create load); these are kept.
var deflaters = make(chan *deflater, runtime.GOMAXPROCS(0))

func newDeflater() *deflater {
	d := &deflater{}
	w, err := flate.NewWriterDict(&d.out, deflateLevel, deflateDict)
	if err != nil {
		panic(err) // only for a level out of range
	}
	d.w = w
	return d
}

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
// nil dst the frame is allocated once (at most 9 bytes over its size).
func Deflate(dst, src []byte) []byte {
	var d *deflater
	select {
	case d = <-deflaters:
	default:
		d = newDeflater()
	}
	d.out.Reset()
	d.w.Reset(&d.out)
	_, _ = d.w.Write(src) // writes to a bytes.Buffer do not fail
	_ = d.w.Close()
	n := 1 + binary.MaxVarintLen64 + d.out.Len()
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	dst = append(dst, deflateFormatV1)
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	dst = append(dst, d.out.Bytes()...)
	if d.out.Cap() > 64<<10 {
		d.out = bytes.Buffer{} // a large document's buffer is not kept in the pool
	}
	select {
	case deflaters <- d:
	default: // as many idle as CPUs already
	}
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
