package kassa

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"testing"
)

// The CPU cost of the compression (docs/performance.md, "After compression"):
//
//	go test -run '^$' -bench 'Deflate|Inflate|Seal|Open' -benchmem -count 3 .
//
// Each reports the frame (or sealed record) size as stored-B/op.

func benchSamples(b *testing.B) map[string][]byte {
	b.Helper()
	return map[string][]byte{"invoice": sampleInvoiceJSON(b), "response": sampleCreateResponse(b)}
}

func BenchmarkDeflate(b *testing.B) {
	for _, name := range []string{"invoice", "response"} {
		src := benchSamples(b)[name]
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

// BenchmarkDeflateFlate9 is the reference Deflate is measured against: the
// same frame written with compress/flate at BestCompression and the same
// dictionary, the writer Deflate used before its own encoder (deflateenc.go),
// kept and Reset as Deflate kept it. Its stored-B/op is what compress/flate
// gives; Deflate's should stay within a few percent of it.
func BenchmarkDeflateFlate9(b *testing.B) {
	for _, name := range []string{"invoice", "response"} {
		src := benchSamples(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var out bytes.Buffer
			w, err := flate.NewWriterDict(&out, flate.BestCompression, deflateDict)
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
				frame = append(binary.AppendUvarint(append(frame, deflateFormatV1), uint64(len(src))), out.Bytes()...)
			}
			b.ReportMetric(float64(len(frame)), "stored-B/op")
		})
	}
}

func BenchmarkInflate(b *testing.B) {
	for _, name := range []string{"invoice", "response"} {
		frame := Deflate(nil, benchSamples(b)[name])
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

// BenchmarkSeal seals a create response as the store saves it: "deflated" as
// Seal does now, "clear" as responses were sealed before (sealMagic).
func BenchmarkSeal(b *testing.B) {
	s := NewResponseSealer([]byte("secret"))
	scope := IdempotencyScope{MerchantID: 7, Environment: Devnet, Route: "POST /api/v1/invoices", Key: NewUUID()}
	body := sampleCreateResponse(b)
	for name, seal := range map[string]func() []byte{
		"deflated": func() []byte { return s.Seal(scope, body) },
		"clear":    func() []byte { return sealRaw(s, sealMagic, scope, body) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var sealed []byte
			for b.Loop() {
				sealed = seal()
			}
			b.ReportMetric(float64(len(sealed)), "stored-B/op")
		})
	}
}

// BenchmarkOpen opens what BenchmarkSeal seals: a replay.
func BenchmarkOpen(b *testing.B) {
	s := NewResponseSealer([]byte("secret"))
	scope := IdempotencyScope{MerchantID: 7, Environment: Devnet, Route: "POST /api/v1/invoices", Key: NewUUID()}
	body := sampleCreateResponse(b)
	for name, sealed := range map[string][]byte{"deflated": s.Seal(scope, body), "clear": sealRaw(s, sealMagic, scope, body)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Open(scope, sealed, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
