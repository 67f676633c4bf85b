package sealed

import (
	"testing"

	"github.com/kassapay/kassa"
)

// The CPU cost of sealing a saved response (docs/performance.md, "After
// compression"):
//
//	go test -run '^$' -bench 'Seal|Open' -benchmem -count 3 ./sealed/
//
// Each reports the sealed record's size as stored-B/op.

// BenchmarkSeal seals a create response as the store saves it: "deflated" as
// Seal does now, "clear" as responses were sealed before (sealMagic).
func BenchmarkSeal(b *testing.B) {
	s := NewResponses([]byte("secret"))
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: kassa.NewUUID()}
	body := readFixture(b).CreateResponse
	for name, seal := range map[string]func() []byte{
		"deflated": func() []byte { return s.Seal(scope, body) },
		"clear":    func() []byte { return sealRaw(s, sealMagic, scope, body) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var record []byte
			for b.Loop() {
				record = seal()
			}
			b.ReportMetric(float64(len(record)), "stored-B/op")
		})
	}
}

// BenchmarkOpen opens what BenchmarkSeal seals: a replay.
func BenchmarkOpen(b *testing.B) {
	s := NewResponses([]byte("secret"))
	scope := kassa.IdempotencyScope{MerchantID: 7, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: kassa.NewUUID()}
	body := readFixture(b).CreateResponse
	for name, record := range map[string][]byte{"deflated": s.Seal(scope, body), "clear": sealRaw(s, sealMagic, scope, body)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Open(scope, record, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
