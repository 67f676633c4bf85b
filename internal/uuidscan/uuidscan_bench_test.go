package uuidscan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// BenchmarkMatch finds the subscribers of n that follow an object an event of about
// 1.7 KB mentions: the plain way tests the event against every subscriber's id
// (what each subscriber did for itself), the scan looks each UUID of the event up.
func BenchmarkMatch(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		ids := make([]string, n)
		subs := make(map[string]int, n)
		for i := range ids {
			ids[i] = kassa.NewUUID()
			subs[ids[i]] = i
		}
		target := ids[n/2]
		event := []byte(`{"id":"` + target + `","object":"invoice","status":"paid","payment_url":"https://pay.example/pay/` +
			target + `?session=abc&signature=def","metadata":{},"description":"` + strings.Repeat("a fine thing ", 100) +
			`","payments":[{"id":"` + kassa.NewUUID() + `","invoice_id":"` + target + `"}]}`)
		b.Run(fmt.Sprintf("contains/%d", n), func(b *testing.B) {
			for b.Loop() {
				hits := 0
				for _, id := range ids {
					if bytes.Contains(event, []byte(id)) {
						hits++
					}
				}
				if hits != 1 {
					b.Fatal(hits)
				}
			}
		})
		b.Run(fmt.Sprintf("scan/%d", n), func(b *testing.B) {
			for b.Loop() {
				hits := 0
				Each(event, func(id []byte) {
					if _, ok := subs[string(id)]; ok {
						hits++
					}
				})
				if hits != 3 { // the invoice's id, its payment_url, the payment's invoice_id
					b.Fatal(hits)
				}
			}
		})
	}
}
