package invoicejson

import (
	"strconv"

	"github.com/kassapay/kassa"
)

// Payor renders the payor's view of an invoice; LockedNetwork is the network of
// its locked token, when one is locked.
type Payor struct {
	*kassa.Invoice
	LockedNetwork *string
}

// MarshalJSON renders the payor view: amounts, texts, expiry, questions, the return
// URL only when enabled, and the locked token; nothing merchant-only.
func (p Payor) MarshalJSON() ([]byte, error) {
	return p.AppendJSON(make([]byte, 0, size(p.Invoice))), nil
}

// AppendJSON appends what MarshalJSON returns to b.
func (p Payor) AppendJSON(b []byte) []byte {
	inv := p.Invoice
	b = append(b, `{"object":"payor_invoice","id":`...)
	b = AppendString(b, inv.ID)
	b = append(b, `,"status":`...)
	b = AppendString(b, string(inv.Status))
	b = append(b, `,"currency":`...)
	b = AppendString(b, inv.Currency)
	b = appendAmounts(b, inv, false)
	b = append(b, `,"environment":`...)
	b = AppendString(b, string(inv.Environment))
	b = append(b, `,"invoice_title":`...)
	b = AppendString(b, inv.InvoiceTitle)
	b = append(b, `,"invoice_footer":`...)
	b = AppendString(b, inv.InvoiceFooter)
	b = append(b, `,"description":`...)
	b = appendOptString(b, inv.Description)
	b = append(b, `,"expires_at":`...)
	b = appendTime(b, inv.ExpiresAt)
	b = append(b, `,"paid_at":`...)
	b = appendOptTime(b, inv.PaidAt)
	b = append(b, `,"questions":`...)
	b = appendQuestions(b, inv.Questions)
	b = append(b, `,"payment_return_url":`...)
	if inv.PaymentReturnURLEnabled {
		b = appendOptString(b, inv.PaymentReturnURL)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"locked_token_id":`...)
	if inv.LockedTokenID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *inv.LockedTokenID, 10)
	}
	b = append(b, `,"locked_network":`...)
	b = appendOptString(b, p.LockedNetwork)
	return append(b, '}')
}
