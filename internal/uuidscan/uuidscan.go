// Package uuidscan finds the UUIDs in a text, so that the event hub can hand an
// event to the subscribers that follow one object (a payment page its invoice, a
// refund page its refund) with one scan of the event and a map lookup per UUID in
// it, instead of testing the event against every subscriber's id.
//
// The plain way, bytes.Contains(event, id) for each subscriber, costs work for
// every subscriber of the merchant on every event: with 10,000 payment pages of one
// merchant open, each event goes to 10,000 subscriptions (a channel send and a
// goroutine woken for each) for one of them to care. Measured (BenchmarkMatch,
// docs/performance.md "Payment pages at 10,000"): one scan of a 1.7 KB event and
// its lookups, 6–34 µs whether 100 or 10,000 ids are followed, against 47–133 µs
// and 17–38 ms for bytes.Contains of each id (a loaded machine); end to end, the
// server's CPU a payment with 10,000 pages open went from 14 to 3.1–4.3 ms.
//
// Each is exact for canonical UUIDs: for an id in the 8-4-4-4-12 hex form (as
// kassa.ValidUUID accepts it), bytes.Contains(b, id) holds exactly when Each
// reports id (the package's tests check both ways against bytes.Contains).
package uuidscan

// Len is the length of a UUID in canonical form.
const Len = 36

// Each calls fn with every substring of b in the canonical 8-4-4-4-12 hex form,
// in order, overlapping ones included (none can overlap in practice, but the
// scan does not assume it). id aliases b: fn must not keep it.
func Each(b []byte, fn func(id []byte)) {
	// Every UUID has a '-' at offset 8: try only the windows around a '-'.
	for i := 8; i+Len-8 <= len(b); i++ {
		if b[i] != '-' {
			continue
		}
		if w := b[i-8 : i-8+Len]; valid(w) {
			fn(w)
		}
	}
}

// valid reports whether w (Len bytes) is a UUID in canonical form.
func valid(w []byte) bool {
	for j, c := range w {
		switch j {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if hexDigit[c] == 0 {
				return false
			}
		}
	}
	return true
}

// hexDigit marks the bytes that are hexadecimal digits.
var hexDigit = func() (t [256]byte) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = 1
	}
	return t
}()
