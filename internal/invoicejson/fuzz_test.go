package invoicejson

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// fuzzInvoice builds an invoice from fuzzed parts: flags choose which optional
// fields are set, and the strings go into every text field in turn.
func fuzzInvoice(texts [4]string, meta []byte, amount, paid, pending int64, flags uint32, t1, t2 int64, zone int32) *kassa.Invoice {
	loc := time.FixedZone("f", int(zone%(26*3600)))
	at1, at2 := time.Unix(0, t1).In(loc), time.Unix(t2, t1%1e9).In(loc)
	opt := func(bit uint, s string) *string {
		if flags&(1<<bit) == 0 {
			return nil
		}
		return &s
	}
	optTime := func(bit uint, t time.Time) *time.Time {
		if flags&(1<<bit) == 0 {
			return nil
		}
		return &t
	}
	a, b, c, d := texts[0], texts[1], texts[2], texts[3]
	inv := &kassa.Invoice{
		ID: a, MerchantID: amount ^ paid, Environment: kassa.Environment(b), Status: kassa.InvoiceStatus(c), Type: d, Currency: a + b,
		Amount: kassa.Millis(amount), AmountPaid: kassa.Millis(paid), AmountPending: kassa.Millis(pending),
		Description: opt(0, b), CustomerID: opt(1, c), CustomerEmail: opt(2, d), InvoiceTitle: c + d, InvoiceFooter: d,
		PaymentReturnURL: opt(3, a), PaymentReturnURLEnabled: flags&(1<<4) != 0,
		ReceiverOverrideEnabled: flags&(1<<5) != 0, ReceiverOverrideAddress: opt(6, b),
		PayerWalletAddress: opt(7, c), PayerWalletNetwork: opt(8, d), CommerceOrderID: opt(9, a),
		ExpiresAt: at1, CreatedAt: at2,
		PaidAt: optTime(10, at2), LastPaymentAt: optTime(11, at1), CanceledAt: optTime(12, at2.Add(time.Duration(pending))),
		Metadata: meta,
	}
	if flags&(1<<13) != 0 {
		inv.Status = kassa.StatusPaid
	}
	if flags&(1<<14) != 0 {
		inv.Questions = []kassa.Question{}
		for i := range int(flags>>20) % 4 {
			inv.Questions = append(inv.Questions, kassa.Question{ID: a, Question: b + c, Type: d, Validation: kassa.QuestionValidation{Required: i%2 == 0}})
		}
	}
	if flags&(1<<15) != 0 {
		inv.FormResponses = []kassa.FormResponse{}
		for range int(flags>>22) % 4 {
			inv.FormResponses = append(inv.FormResponses, kassa.FormResponse{QuestionID: c, Response: d + a})
		}
	}
	if flags&(1<<16) != 0 {
		inv.LockedTokenID = &t2
	}
	return inv
}

// FuzzInvoiceJSON compares the hand-written encoders with the reflection-based
// ones they replaced (ref_test.go) on random text, amounts, times and
// optional fields: the bytes and any error must be the same.
func FuzzInvoiceJSON(f *testing.F) {
	f.Add("123e4567-e89b-42d3-a456-426614174000", "devnet", "unpaid", "standard", []byte(`{"run": "x"}`),
		int64(12500), int64(0), int64(0), uint32(0), int64(1793527200_000_000_000), int64(1793527200), int32(0))
	f.Add("<&>", "\u2028\u2029", "\xff\xfe", "\x00\n\"\\", []byte(" { \"a\" : [ 1 , \"b \\\" c\" ] } "),
		int64(-1), int64(1<<62), int64(-5), uint32(0xffffffff), int64(-1), int64(-62167219200-3600), int32(-3600))
	f.Add("é", "😀", "\xc3(", "a b", []byte(`{"a":}`), int64(999), int64(1000), int64(1), uint32(0x5555),
		int64(253402300799_999_999_999%(1<<62)), int64(253402300800), int32(50400))
	f.Add("", "", "", "", []byte(nil), int64(0), int64(0), int64(0), uint32(1<<14|1<<15|3<<20|2<<22), int64(0), int64(0), int32(0))
	f.Fuzz(func(t *testing.T, a, b, c, d string, meta []byte, amount, paid, pending int64, flags uint32, t1, t2 int64, zone int32) {
		inv := fuzzInvoice([4]string{a, b, c, d}, meta, amount, paid, pending, flags, t1, t2, zone)
		checkInvoice(t, inv, nil)
		ev := &kassa.Event{ID: a, Type: b, Created: inv.CreatedAt, Data: json.RawMessage(meta)}
		want, wantErr := refEvent(ev)
		got, err := ev.MarshalJSON()
		sameJSON(t, "Event", got, err, want, wantErr)
		want, _ = kassa.MarshalJSON(c + d)
		sameJSON(t, "AppendString", AppendString(nil, c+d), nil, want, nil)
	})
}

// benchInvoice is an invoice as kassa-load creates it, as a list shows it.
func benchInvoice() *kassa.Invoice {
	return &kassa.Invoice{
		ID: "01a212e7-453d-7891-973c-cbe70168c00d", MerchantID: 1, Environment: kassa.Devnet, Status: kassa.StatusUnpaid,
		Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: 12500, Description: ptr("load test"),
		InvoiceTitle: "Demo Store", InvoiceFooter: "Demo Store", PaymentReturnURLEnabled: true,
		Metadata:  []byte(`{"run": "kassa-load"}`),
		ExpiresAt: jsonCreated.Add(12 * time.Hour), CreatedAt: jsonCreated,
	}
}

// BenchmarkInvoiceJSON encodes one invoice: through Marshal, through the
// reflection-based encoder it replaced, and appended to a reused buffer (the list's
// way).
func BenchmarkInvoiceJSON(b *testing.B) {
	inv := benchInvoice()
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := refInvoice(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Append", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			var err error
			if buf, err = Append(buf[:0], inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("event-reflection", func(b *testing.B) { // the same through the encoders it replaced
		b.ReportAllocs()
		for b.Loop() {
			d, err := refInvoice(inv)
			if err != nil {
				b.Fatal(err)
			}
			data, err := kassa.MarshalJSON(json.RawMessage(d)) // as encoding/json wrapped the invoice's own bytes
			if err != nil {
				b.Fatal(err)
			}
			ev := &kassa.Event{ID: kassa.NewEventID(jsonCreated), MerchantID: 1, Environment: kassa.Devnet, Type: kassa.EventInvoiceCreated,
				Created: jsonCreated, Data: data}
			if _, err := refEvent(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("event", func(b *testing.B) { // what the store and Event.MarshalJSON do for invoice.created
		b.ReportAllocs()
		for b.Loop() {
			data, err := EventData(inv)
			if err != nil {
				b.Fatal(err)
			}
			ev := kassa.NewEvent(1, kassa.Devnet, kassa.EventInvoiceCreated, data, jsonCreated)
			if _, err := ev.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
