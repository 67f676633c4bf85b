package deflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The CPU cost of the compression and the alternatives measured against it
// (docs/performance.md, "After compression"):
//
//	go test -run '^$' -bench . -benchmem -count 5 ./internal/deflate/
//
// Each reports the frame's size as stored-B/op. BenchmarkDeflate is Kassa's
// encoder, BenchmarkStatelessDeflate the well-kept library it is measured against.

// benchDocs are the documents a create deflates: its event's data and its saved
// response without the invoice.
var benchDocs = []string{"invoice", "response"}

func BenchmarkDeflate(b *testing.B) {
	for _, name := range benchDocs {
		src := samples(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var frame []byte
			for b.Loop() {
				frame = Deflate(nil, src)
			}
			b.ReportMetric(float64(len(frame)), "stored-B/op")
		})
	}
}

// BenchmarkStatelessDeflate writes the same frame with klauspost/compress's
// StatelessDeflate and the same dictionary: the library the encoder is kept over.
func BenchmarkStatelessDeflate(b *testing.B) {
	for _, name := range benchDocs {
		src := samples(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var frame []byte
			for b.Loop() {
				frame = statelessFrame(src)
			}
			b.ReportMetric(float64(len(frame)), "stored-B/op")
		})
	}
}

// BenchmarkDeflateLevel9 writes the same frame with compress/flate at
// BestCompression and the same dictionary, its writer kept and Reset: the
// standard library's smallest.
func BenchmarkDeflateLevel9(b *testing.B) {
	for _, name := range benchDocs {
		src := samples(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var out bytes.Buffer
			w, err := flate.NewWriterDict(&out, flate.BestCompression, dict)
			if err != nil {
				b.Fatal(err)
			}
			var frame []byte
			for b.Loop() {
				out.Reset()
				w.Reset(&out)
				_, _ = w.Write(src)
				_ = w.Close()
				frame = make([]byte, 0, 1+binary.MaxVarintLen64+out.Len())
				frame = append(binary.AppendUvarint(append(frame, formatV1), uint64(len(src))), out.Bytes()...)
			}
			b.ReportMetric(float64(len(frame)), "stored-B/op")
		})
	}
}

// BenchmarkZstd compresses with klauspost's zstd at its fastest level and the
// same dictionary as raw content: the other library measured (it would be a new
// format; frames a little smaller than the library's DEFLATE, and slower).
func BenchmarkZstd(b *testing.B) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(1, dict), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithSingleSegment(true))
	if err != nil {
		b.Fatal(err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(1, dict), zstd.WithDecoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range benchDocs {
		src := samples(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var frame []byte
			for b.Loop() {
				frame = binary.AppendUvarint([]byte{2}, uint64(len(src)))
				frame = enc.EncodeAll(src, frame)
			}
			_, k := binary.Uvarint(frame[1:])
			if got, err := dec.DecodeAll(frame[1+k:], nil); err != nil || !bytes.Equal(got, src) {
				b.Fatalf("round trip: %v", err)
			}
			b.ReportMetric(float64(len(frame)), "stored-B/op")
		})
	}
}

func BenchmarkInflate(b *testing.B) {
	for _, name := range benchDocs {
		frame := Deflate(nil, samples(b)[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Inflate(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
