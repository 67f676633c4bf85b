package kassa

import (
	"encoding/json"
	"testing"
	"time"
)

var jsonCreated = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// minimalInvoice is an invoice with only what creation requires.
func minimalInvoice() *Invoice {
	return &Invoice{
		ID: "123e4567-e89b-42d3-a456-426614174000", MerchantID: 7, Environment: Devnet,
		Status: StatusUnpaid, Type: InvoiceTypeStandard, Currency: "usd", Amount: 12340,
		InvoiceTitle: "Shop", InvoiceFooter: "Shop",
		ExpiresAt: jsonCreated.Add(12 * time.Hour), CreatedAt: jsonCreated,
	}
}

// invoiceJSON stands in for the canonical object of inv, for tests of the domain
// that need one (sealed responses, events): kassa/internal/invoicejson renders the
// real one, and the domain's tests cannot import it (it imports the domain). It
// has the canonical members in their order, the optional ones as null, and the
// same length for the invoices these tests make.
func invoiceJSON(t testing.TB, inv *Invoice) json.RawMessage {
	t.Helper()
	meta := json.RawMessage(inv.Metadata)
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	rem := inv.AmountRemaining()
	b, err := MarshalJSON(struct {
		Object                 string          `json:"object"`
		ID                     string          `json:"id"`
		MerchantID             int64           `json:"merchant_id"`
		Status                 InvoiceStatus   `json:"status"`
		Type                   string          `json:"invoice_type"`
		Currency               string          `json:"currency"`
		Amount                 Millis          `json:"amount"`
		AmountDecimal          string          `json:"amount_decimal"`
		AmountPaid             Millis          `json:"amount_paid"`
		AmountPaidDecimal      string          `json:"amount_paid_decimal"`
		AmountRemaining        Millis          `json:"amount_remaining"`
		AmountRemainingDecimal string          `json:"amount_remaining_decimal"`
		AmountPending          Millis          `json:"amount_pending"`
		AmountPendingDecimal   string          `json:"amount_pending_decimal"`
		AmountRefunded         Millis          `json:"amount_refunded"`
		AmountRefundedDecimal  string          `json:"amount_refunded_decimal"`
		AmountUnit             string          `json:"amount_unit"`
		CustomerID             *string         `json:"customer_id"`
		PayerWalletAddress     *string         `json:"payer_wallet_address"`
		PayerWalletNetwork     *string         `json:"payer_wallet_network"`
		CommerceOrderID        *string         `json:"commerce_order_id"`
		Environment            Environment     `json:"environment"`
		ExpiresAt              string          `json:"expires_at"`
		CreatedAt              string          `json:"created_at"`
		PaidAt                 *string         `json:"paid_at"`
		LastPaymentAt          *string         `json:"last_payment_at"`
		CanceledAt             *string         `json:"canceled_at"`
		Description            *string         `json:"description"`
		CustomerEmail          *string         `json:"customer_email"`
		InvoiceTitle           string          `json:"invoice_title"`
		InvoiceFooter          string          `json:"invoice_footer"`
		PaymentReturnURL       *string         `json:"payment_return_url"`
		PaymentReturnEnabled   bool            `json:"payment_return_url_enabled"`
		ReceiverOverride       bool            `json:"receiver_override_enabled"`
		ReceiverOverrideAddr   *string         `json:"receiver_override_address"`
		Questions              *string         `json:"questions"`
		FormResponses          *string         `json:"form_responses"`
		Metadata               json.RawMessage `json:"metadata"`
	}{
		Object: "invoice", ID: inv.ID, MerchantID: inv.MerchantID, Status: inv.Status, Type: inv.Type,
		Currency: inv.Currency, Amount: inv.Amount, AmountDecimal: inv.Amount.Decimal(),
		AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(),
		AmountPending: inv.AmountPending, AmountPendingDecimal: inv.AmountPending.Decimal(),
		AmountRefunded: inv.AmountRefunded, AmountRefundedDecimal: inv.AmountRefunded.Decimal(),
		AmountUnit: "usd_millis", Environment: inv.Environment,
		ExpiresAt: FormatTime(inv.ExpiresAt), CreatedAt: FormatTime(inv.CreatedAt),
		Description: inv.Description, InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter,
		Metadata: meta,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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

// TestInvoiceRefusesJSON: an invoice is never encoded by its Go fields.
func TestInvoiceRefusesJSON(t *testing.T) {
	for _, v := range []any{minimalInvoice(), *minimalInvoice(), struct{ I *Invoice }{minimalInvoice()}} {
		if b, err := MarshalJSON(v); err == nil {
			t.Errorf("MarshalJSON(%T) = %s", v, b)
		}
	}
}

// TestInvoiceStandIn: the stand-in has the canonical object's bytes for the
// minimal invoice (internal/invoicejson's Marshal of the same invoice).
func TestInvoiceStandIn(t *testing.T) {
	const want = `{"object":"invoice","id":"123e4567-e89b-42d3-a456-426614174000","merchant_id":7,"status":"unpaid","invoice_type":"standard","currency":"usd","amount":12340,"amount_decimal":"12.340","amount_paid":0,"amount_paid_decimal":"0.000","amount_remaining":12340,"amount_remaining_decimal":"12.340","amount_pending":0,"amount_pending_decimal":"0.000","amount_refunded":0,"amount_refunded_decimal":"0.000","amount_unit":"usd_millis","customer_id":null,"payer_wallet_address":null,"payer_wallet_network":null,"commerce_order_id":null,"environment":"devnet","expires_at":"2026-11-01T22:00:00.000Z","created_at":"2026-11-01T10:00:00.000Z","paid_at":null,"last_payment_at":null,"canceled_at":null,"description":null,"customer_email":null,"invoice_title":"Shop","invoice_footer":"Shop","payment_return_url":null,"payment_return_url_enabled":false,"receiver_override_enabled":false,"receiver_override_address":null,"questions":null,"form_responses":null,"metadata":{}}`
	if got := invoiceJSON(t, minimalInvoice()); string(got) != want {
		t.Errorf("invoiceJSON =\n%s\nwant\n%s", got, want)
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
