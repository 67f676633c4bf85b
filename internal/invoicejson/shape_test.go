package invoicejson

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

var jsonCreated = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// fields decodes a JSON object into its raw members.
func fields(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

// wantMember checks the raw JSON of one member.
func wantMember(t *testing.T, m map[string]json.RawMessage, key, want string) {
	t.Helper()
	got, ok := m[key]
	if !ok {
		t.Errorf("member %q missing", key)
		return
	}
	if string(got) != want {
		t.Errorf("%s = %s, want %s", key, got, want)
	}
}

func minimalInvoice() *kassa.Invoice {
	return &kassa.Invoice{
		ID: "123e4567-e89b-42d3-a456-426614174000", MerchantID: 7, Environment: kassa.Devnet,
		Status: kassa.StatusUnpaid, Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: 12340,
		InvoiceTitle: "Shop", InvoiceFooter: "Shop",
		ExpiresAt: jsonCreated.Add(12 * time.Hour), CreatedAt: jsonCreated,
	}
}

func TestInvoiceJSONMinimal(t *testing.T) {
	b, err := Marshal(minimalInvoice())
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, b)
	// Every field of docs/api.md 2.4, in the order it lists them, then Kassa's own.
	for key, want := range map[string]string{
		"object": `"invoice"`, "id": `"123e4567-e89b-42d3-a456-426614174000"`, "merchant_id": `7`,
		"status": `"unpaid"`, "invoice_type": `"standard"`, "currency": `"usd"`,
		"amount": `12340`, "amount_decimal": `"12.340"`, "amount_paid": `0`, "amount_paid_decimal": `"0.000"`,
		"amount_remaining": `12340`, "amount_remaining_decimal": `"12.340"`, "amount_unit": `"usd_millis"`,
		"customer_id": `null`, "payer_wallet_address": `null`, "payer_wallet_network": `null`,
		"commerce_order_id": `null`, "environment": `"devnet"`,
		"expires_at": `"2026-11-01T22:00:00.000Z"`, "created_at": `"2026-11-01T10:00:00.000Z"`,
		"paid_at": `null`, "last_payment_at": `null`, "metadata": `{}`,
		"amount_pending": `0`, "amount_pending_decimal": `"0.000"`, "canceled_at": `null`,
		"amount_refunded": `0`, "amount_refunded_decimal": `"0.000"`,
		"description": `null`, "customer_email": `null`, "invoice_title": `"Shop"`, "invoice_footer": `"Shop"`,
		"payment_return_url": `null`, "payment_return_url_enabled": `false`,
		"receiver_override_enabled": `false`, "receiver_override_address": `null`, "questions": `null`, "form_responses": `null`,
	} {
		wantMember(t, m, key, want)
	}
	for _, key := range []string{"latest_payment", "payments"} {
		if _, ok := m[key]; ok {
			t.Errorf("%s present without expansion", key)
		}
	}
	if len(m) != 38 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Errorf("invoice has %d members, want 38: %v", len(m), keys)
	}
	// Expanded without expansions is the canonical object, inside any answer.
	v, err := json.Marshal(Expanded{Invoice: minimalInvoice()})
	if err != nil || !bytes.Equal(v, b) {
		t.Errorf("json.Marshal(Expanded) = %s, %v; want %s", v, err, b)
	}
	// An Invoice, value or pointer, refuses to be encoded by its Go fields.
	for _, x := range []any{*minimalInvoice(), minimalInvoice()} {
		if _, err := json.Marshal(x); err == nil {
			t.Errorf("json.Marshal(%T) encoded the Go fields", x)
		}
	}
}

func TestInvoiceJSONFull(t *testing.T) {
	paid := jsonCreated.Add(time.Hour + 1500*time.Microsecond)
	inv := minimalInvoice()
	inv.Status, inv.AmountPaid, inv.AmountPending = kassa.StatusPaid, 20000, 5
	inv.CustomerID, inv.CustomerEmail, inv.Description = ptr("cus_9"), ptr("p@x.io"), ptr("<b>Order</b> & co")
	inv.PayerWalletAddress, inv.PayerWalletNetwork = ptr(goodAddress), ptr("bsc")
	inv.CommerceOrderID, inv.PaidAt, inv.LastPaymentAt = ptr("ord_1"), &paid, &paid
	inv.PaymentReturnURL, inv.PaymentReturnURLEnabled = ptr("https://shop.example/r"), true
	inv.ReceiverOverrideEnabled, inv.ReceiverOverrideAddress = true, ptr(goodAddress)
	inv.Questions = []kassa.Question{{ID: "q1", Question: "Email?", Type: "email", Validation: kassa.QuestionValidation{Required: true}}}
	inv.Metadata = []byte(`{"z":1,"a":{"n":1.10,"big":123456789012345678901234567890,"e":2E3},"s":"é"}`)
	m := fields(t, mustMarshal(t, Expanded{Invoice: inv}))
	for key, want := range map[string]string{
		"status": `"paid"`, "amount_paid": `20000`, "amount_paid_decimal": `"20.000"`,
		"amount_remaining": `0`, "amount_remaining_decimal": `"0.000"`,
		"amount_pending": `5`, "amount_pending_decimal": `"0.005"`,
		"customer_id": `"cus_9"`, "customer_email": `"p@x.io"`,
		"payer_wallet_address": `"` + goodAddress + `"`, "payer_wallet_network": `"bsc"`,
		"commerce_order_id": `"ord_1"`, "paid_at": `"2026-11-01T11:00:00.001Z"`,
		"last_payment_at":    `"2026-11-01T11:00:00.001Z"`,
		"payment_return_url": `"https://shop.example/r"`, "payment_return_url_enabled": `true`,
		"receiver_override_enabled": `true`, "receiver_override_address": `"` + goodAddress + `"`,
		"questions": `{"questions":[{"id":"q1","question":"Email?","type":"email","validation":{"required":true}}]}`,
		// Metadata keeps its key order and number text exactly as supplied.
		"metadata": string(inv.Metadata),
	} {
		wantMember(t, m, key, want)
	}
	var desc string
	if err := json.Unmarshal(m["description"], &desc); err != nil || desc != *inv.Description {
		t.Errorf("description = %s", m["description"])
	}
}

// Metadata supplied with whitespace comes back as the same JSON text, compacted.
func TestInvoiceJSONMetadataWhitespace(t *testing.T) {
	inv := minimalInvoice()
	inv.Metadata = []byte("{ \"b\" : [1, 2.50],\n  \"a\": null }")
	m := fields(t, mustMarshal(t, Expanded{Invoice: inv}))
	wantMember(t, m, "metadata", `{"b":[1,2.50],"a":null}`)
}

func TestExpandedInvoiceJSON(t *testing.T) {
	tests := []struct {
		expand           Expand
		latest, payments string // "" when absent
	}{
		{Expand{}, "", ""},
		{Expand{LatestPayment: true}, "null", ""},
		{Expand{Payments: true, PaymentsLimit: 10}, "", "[]"},
		{Expand{LatestPayment: true, Payments: true}, "null", "[]"},
	}
	plain := mustMarshal(t, Expanded{Invoice: minimalInvoice()})
	for _, tt := range tests {
		b := mustMarshal(t, Expanded{Invoice: minimalInvoice(), Expand: tt.expand})
		m := fields(t, b)
		for key, want := range map[string]string{"latest_payment": tt.latest, "payments": tt.payments} {
			if want == "" {
				if _, ok := m[key]; ok {
					t.Errorf("%+v: %s present", tt.expand, key)
				}
				continue
			}
			wantMember(t, m, key, want)
		}
		delete(m, "latest_payment")
		delete(m, "payments")
		if got := mustMarshal(t, m); !bytes.Equal(got, mustMarshal(t, fields(t, plain))) {
			t.Errorf("%+v: the rest differs from the plain invoice:\n%s\n%s", tt.expand, got, plain)
		}
	}
}

func TestEventJSON(t *testing.T) {
	inv := minimalInvoice()
	at := time.Date(2026, 11, 1, 10, 0, 0, 999_000_000, time.UTC)
	invJSON, err := EventData(inv)
	if err != nil {
		t.Fatal(err)
	}
	ev := kassa.NewEvent(inv.MerchantID, inv.Environment, kassa.EventInvoiceCreated, invJSON, at)
	if !strings.HasPrefix(ev.ID, "evt_") || len(ev.ID) < 20 || ev.MerchantID != 7 || ev.Environment != kassa.Devnet {
		t.Errorf("NewEvent = %+v", ev)
	}
	if other := kassa.NewEvent(1, kassa.Devnet, kassa.EventInvoiceCreated, invJSON, at); other.ID == ev.ID {
		t.Error("event ids repeat")
	}
	b := mustMarshal(t, ev)
	m := fields(t, b)
	if len(m) != 6 {
		t.Errorf("event has %d members, want 6: %s", len(m), b)
	}
	wantMember(t, m, "id", `"`+ev.ID+`"`)
	wantMember(t, m, "object", `"event"`)
	wantMember(t, m, "api_version", `"2026-11-01"`)
	wantMember(t, m, "type", `"invoice.created"`)
	wantMember(t, m, "created", "1793527200") // Unix seconds, fraction dropped
	data := fields(t, m["data"])
	if len(data) != 1 {
		t.Errorf("data has %d members, want only object", len(data))
	}
	wantMember(t, data, "object", string(mustMarshal(t, Expanded{Invoice: inv})))
	obj := fields(t, data["object"])
	wantMember(t, obj, "object", `"invoice"`)
	wantMember(t, obj, "id", `"`+inv.ID+`"`)
	// An Event value marshals like a pointer to it.
	if v := mustMarshal(t, *ev); !bytes.Equal(v, b) {
		t.Errorf("json.Marshal(Event) = %s, want %s", v, b)
	}
	if _, err := EventData(func() {}); err == nil {
		t.Error("EventData accepted an object that cannot be marshalled")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

const goodAddress = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"
