package kassa

import (
	"encoding/json"
	"testing"
	"time"
)

// The CPU cost of sealing a saved response (docs/performance.md, "After
// compression"):
//
//	go test -run '^$' -bench 'Seal|Open' -benchmem -count 3 .
//
// Each reports the sealed record's size as stored-B/op.

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

// sampleCreateResponse is a POST /api/v1/invoices response as merchantapi renders
// and saves it.
func sampleCreateResponse(t testing.TB) []byte {
	t.Helper()
	signer := NewSessionSigner([]byte("test secret"))
	inv := minimalInvoice()
	inv.ID = NewTimeUUID(time.Now())
	token := NewSessionToken(inv.ID)
	sig := signer.Sign(token)
	b, err := MarshalJSON(struct {
		InvoiceID             string          `json:"invoice_id"`
		PaymentURL            string          `json:"payment_url"`
		ExpiresAt             string          `json:"expires_at"`
		SessionToken          string          `json:"session_token"`
		Signature             string          `json:"signature"`
		PaymentSessionHeaders SessionHeaders  `json:"payment_session_headers"`
		Invoice               json.RawMessage `json:"invoice"`
	}{inv.ID, signer.PaymentURL("https://pay.example.com", inv.ID, token), FormatTime(inv.ExpiresAt),
		token, sig, SessionHeaders{SessionToken: token, Signature: sig}, invoiceJSON(t, inv)})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
