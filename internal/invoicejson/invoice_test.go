package invoicejson

import (
	"bytes"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// sameJSON checks that the new encoder's output and error match the reference's.
func sameJSON(t *testing.T, name string, got []byte, gotErr error, want []byte, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%s: error %v, want %v", name, gotErr, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}

// checkInvoice compares every hand-written rendering of inv with its reference:
// the canonical object (Marshal, Append after other bytes, json.Marshal around
// Expanded), each expansion, the payor view and an event about it.
func checkInvoice(t *testing.T, inv *kassa.Invoice, receipts []*kassa.Payment) {
	t.Helper()
	want, wantErr := refInvoice(inv)
	got, err := Marshal(inv)
	sameJSON(t, "Marshal", got, err, want, wantErr)
	prefix := []byte("[1,")
	appended, err := Append(bytes.Clone(prefix), inv)
	if err != nil {
		appended = nil
	}
	if wantErr == nil && !bytes.Equal(appended, append(bytes.Clone(prefix), want...)) {
		t.Fatalf("Append after other bytes: %s", appended)
	}
	outer, err := kassa.MarshalJSON(struct{ I Expanded }{Expanded{Invoice: inv}})
	refOuter, refErr := kassa.MarshalJSON(struct{ I refInvoiceJSON }{refCanonical(inv)})
	if wantErr == nil { // the wrapping error names the wrapper's types
		sameJSON(t, "inside a struct", outer, err, refOuter, refErr)
	}
	for _, x := range []Expand{{}, {LatestPayment: true}, {Payments: true, PaymentsLimit: 1},
		{LatestPayment: true, Payments: true}} {
		e := Expanded{Invoice: inv, Expand: x, Receipts: receipts}
		want, wantErr := refExpanded(e)
		got, err := e.MarshalJSON()
		sameJSON(t, "Expanded", got, err, want, wantErr)
	}
	for _, network := range []*string{nil, ptr("bsc\u2028<>")} {
		p := Payor{Invoice: inv, LockedNetwork: network}
		want, wantErr := refPayor(p)
		got, err := p.MarshalJSON()
		sameJSON(t, "Payor", got, err, want, wantErr)
	}
	data, err := EventData(inv)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("EventData: error %v, want %v", err, wantErr)
	}
	if err == nil {
		sameJSON(t, "event data", data, nil, want, nil)
		ev := kassa.NewEvent(inv.MerchantID, inv.Environment, kassa.EventInvoiceUpdated, data, jsonCreated)
		want, wantErr := refEvent(ev)
		got, err := ev.MarshalJSON()
		sameJSON(t, "Event", got, err, want, wantErr)
	}
}

func TestInvoiceEncoderMatchesReflection(t *testing.T) {
	nanos := time.Date(2026, 2, 3, 4, 5, 6, 999_999_999, time.FixedZone("x", -7*3600-30*60))
	ancient, future := time.Date(-44, 3, 15, 0, 0, 0, 0, time.UTC), time.Date(12026, 1, 1, 0, 0, 0, 1e6, time.UTC)
	receipt := &kassa.Payment{ID: "pay_1", InvoiceID: "inv", Network: "bsc", TxHash: "0xab", TokenID: 3,
		FromAddress: goodAddress, AmountUnits: big.NewInt(12345678), AmountUSD: 12340, Status: "confirmed",
		Confirmations: 12, SeenAt: jsonCreated, ConfirmedAt: &nanos, Settlement: "pending"}
	tests := []struct {
		name     string
		change   func(inv *kassa.Invoice)
		receipts []*kassa.Payment
	}{
		{"minimal", func(*kassa.Invoice) {}, nil},
		{"full", func(inv *kassa.Invoice) {
			inv.Status, inv.AmountPaid, inv.AmountPending = kassa.StatusUnderpaid, 20, 5
			inv.CustomerID, inv.CustomerEmail, inv.Description = ptr("cus_9"), ptr("p@x.io"), ptr("<b>Order</b> & co")
			inv.PayerWalletAddress, inv.PayerWalletNetwork, inv.CommerceOrderID = ptr(goodAddress), ptr("bsc"), ptr("ord_1")
			inv.PaidAt, inv.LastPaymentAt, inv.CanceledAt = &nanos, &nanos, &jsonCreated
			inv.PaymentReturnURL, inv.PaymentReturnURLEnabled = ptr("https://shop.example/r?a=1&b=<2>"), true
			inv.ReceiverOverrideEnabled, inv.ReceiverOverrideAddress = true, ptr(goodAddress)
			inv.Questions = []kassa.Question{{ID: "q1", Question: "Email?", Type: "email", Validation: kassa.QuestionValidation{Required: true}},
				{ID: "q\"2", Question: "Why\n\t\\?", Type: "text"}}
			inv.FormResponses = []kassa.FormResponse{{QuestionID: "q1", Response: "a@b.c"}, {QuestionID: "q\"2", Response: "\x00\x1f\x7f"}}
			inv.LockedTokenID = ptr(int64(-9))
			inv.Metadata = []byte(`{"z":1,"a":{"n":1.10,"big":123456789012345678901234567890,"e":2E3},"s":"é"}`)
		}, []*kassa.Payment{receipt, receipt}},
		{"empty lists", func(inv *kassa.Invoice) {
			inv.Questions, inv.FormResponses = []kassa.Question{}, []kassa.FormResponse{}
		}, []*kassa.Payment{}},
		{"hostile text", func(inv *kassa.Invoice) {
			inv.ID = "a\u2028b\u2029c\xff\xfe\xc3(d\U0001F600e\ufffd"
			inv.InvoiceTitle, inv.InvoiceFooter = "<script>&amp;</script>", "\b\f\n\r\t\"\\/"
			inv.Status, inv.Environment, inv.Type, inv.Currency = "x\x01", "\u2029", "", "\xed\xa0\x80"
			inv.Description = ptr(string([]byte{0xe2, 0x80, 0xa8, 0xe2, 0x80}))
		}, nil},
		{"extreme amounts", func(inv *kassa.Invoice) {
			inv.Amount, inv.AmountPaid, inv.AmountPending = math.MinInt64, math.MaxInt64, -1
			inv.MerchantID = math.MinInt64
		}, nil},
		{"paid over", func(inv *kassa.Invoice) { inv.Status, inv.AmountPaid = kassa.StatusPaid, 99_999 }, nil},
		{"odd times", func(inv *kassa.Invoice) {
			inv.ExpiresAt, inv.CreatedAt, inv.PaidAt = ancient, future, &time.Time{}
		}, nil},
		{"metadata whitespace", func(inv *kassa.Invoice) {
			inv.Metadata = []byte(" {\r\n\t\"b\" : [1, 2.50] ,\"s\": \"a \\\" b\\\\\", \"u\":\"\u2028<&>\xff\" } \n")
		}, nil},
		{"metadata not an object", func(inv *kassa.Invoice) { inv.Metadata = []byte(`[1, "x"]`) }, nil},
		{"metadata invalid", func(inv *kassa.Invoice) { inv.Metadata = []byte(`{"a":}`) }, nil},
		{"metadata trailing", func(inv *kassa.Invoice) { inv.Metadata = []byte(`{} x`) }, nil},
		{"metadata nil receipt", func(inv *kassa.Invoice) { inv.Metadata = []byte(`{}`) }, []*kassa.Payment{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := minimalInvoice()
			tt.change(inv)
			checkInvoice(t, inv, tt.receipts)
		})
	}
}

func TestEventEncoderMatchesReflection(t *testing.T) {
	for _, data := range []string{"", "null", `{"a": 1}`, "{", ` "x\u2028" `, "[1,2] 3"} {
		ev := &kassa.Event{ID: "evt_\u2028", Type: "t<&>", Created: time.Unix(-1, 5), Data: []byte(data)}
		if data == "" {
			ev.Data = nil
		}
		want, wantErr := refEvent(ev)
		got, err := ev.MarshalJSON()
		sameJSON(t, data, got, err, want, wantErr)
	}
	ev := &kassa.Event{Data: []byte{}} // empty, not nil: encoding/json refuses it
	want, wantErr := refEvent(ev)
	got, err := ev.MarshalJSON()
	sameJSON(t, "empty data", got, err, want, wantErr)
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "\x00\x01\x1f\x20\x7f\x80", "<>&", "\u2027\u2028\u2029\u202a",
		"\xe2\x80", "\xe2\x80\xa8\xe2", "é\xc3", "\xf4\x90\x80\x80", "a\"b\\c/d"} {
		want, _ := kassa.MarshalJSON(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}
