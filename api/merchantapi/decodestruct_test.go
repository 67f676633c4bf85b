package merchantapi

import (
	"testing"

	"github.com/kassapay/kassa"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// createStruct is the invoice create body as a typed request struct for json v2
// (issue 38): what decodeInvoiceCreate's callbacks would become. amount_usd and
// metadata stay raw (the amount is read exactly from its text; metadata is kept
// as written), so the comparison is of the reading, not of the rules after it.
type createStruct struct {
	AmountUSD               jsontext.Value `json:"amount_usd"`
	Description             *string        `json:"description"`
	CustomerID              *string        `json:"customer_id"`
	CustomerEmail           *string        `json:"customer_email"`
	ReceiverOverrideAddress *string        `json:"receiver_override_address"`
	InvoiceTitle            *string        `json:"invoice_title"`
	InvoiceFooter           *string        `json:"invoice_footer"`
	PaymentReturnURL        *string        `json:"payment_return_url"`
	ExpiresIn               *int64         `json:"expires_in"`
	Metadata                jsontext.Value `json:"metadata"`
	Questions               jsontext.Value `json:"questions"`
	ReceiverOverrideEnable  *bool          `json:"receiver_override_enable"`
	PaymentReturnURLEnabled *bool          `json:"payment_return_url_enabled"`
}

// BenchmarkCreateDecode reads kassa-load's create body: decodeInvoiceCreate (the
// callbacks over httpx.DecodeFields, with ParseUSD and Validate), and json v2's
// Unmarshal into createStruct with unknown members refused, then the same
// ParseUSD and Validate.
func BenchmarkCreateDecode(b *testing.B) {
	body := []byte(`{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`)
	b.Run("callbacks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeInvoiceCreate(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonv2-struct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s createStruct
			if err := json.Unmarshal(body, &s, json.RejectUnknownMembers(true)); err != nil {
				b.Fatal(err)
			}
			c := kassa.InvoiceCreate{Description: s.Description, Metadata: s.Metadata}
			var err error
			if c.Amount, err = kassa.ParseUSD(string(s.AmountUSD), "amount_usd"); err != nil {
				b.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
