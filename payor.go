package kassa

import (
	"context"
	"strconv"
	"time"
)

// PayorService is what the payor side (the payment page) may do with an invoice,
// found by its payment session token. It never exposes merchant-only data.
type PayorService interface {
	// InvoiceBySession finds the invoice of a session token. A token that names no
	// invoice, or whose session ended (SessionGrace after the invoice's expiry), is
	// session_not_found (404).
	InvoiceBySession(ctx context.Context, token string) (*Invoice, error)
	// SetCustomerEmail stores the payor's email for the receipt: 400 invoice_paid on
	// a paid invoice, 410 invoice_expired on an expired or canceled one.
	SetCustomerEmail(ctx context.Context, merchantID int64, invoiceID, email string) (*Invoice, error)
	// SubmitForm stores the payor's answers (CheckResponses), replacing earlier
	// ones; refused like SetCustomerEmail once the invoice is paid or over.
	SubmitForm(ctx context.Context, merchantID int64, invoiceID string, rs []FormResponse) (*Invoice, error)
}

// ErrSessionNotFound is the answer for a payment session token that names no
// invoice, or whose session has ended (404 session_not_found).
func ErrSessionNotFound() error {
	return &Error{Kind: KindNotFound, Code: "session_not_found", Message: "No such payment session, or it has ended."}
}

// SessionOpen reports whether a payment session of inv is still usable at now.
func SessionOpen(inv *Invoice, now time.Time) bool {
	return now.Before(inv.ExpiresAt.Add(SessionGrace))
}

// CheckPayorUpdate says whether the payor may change param (the email, the form
// answers) on an invoice in status s: not once it is paid (400), nor once it is over
// (410).
func CheckPayorUpdate(s InvoiceStatus, param string) error {
	switch s {
	case StatusPaid:
		return Invalidf(param, "invoice_paid", "This invoice is already paid.")
	case StatusExpired, StatusCanceled:
		return Errorf(KindGone, "invoice_"+string(s), "This invoice is %s.", s)
	}
	return nil
}

// PayorInvoice renders the payor's view of an invoice; LockedNetwork is the network
// of its locked token, when one is locked.
type PayorInvoice struct {
	*Invoice
	LockedNetwork *string
}

// MarshalJSON renders the payor view: amounts, texts, expiry, questions, the return
// URL only when enabled, and the locked token; nothing merchant-only.
func (p PayorInvoice) MarshalJSON() ([]byte, error) {
	return p.AppendJSON(make([]byte, 0, p.jsonSize())), nil
}

// AppendJSON appends what MarshalJSON returns to b.
func (p PayorInvoice) AppendJSON(b []byte) []byte {
	inv := p.Invoice
	b = append(b, `{"object":"payor_invoice","id":`...)
	b = AppendJSONString(b, inv.ID)
	b = append(b, `,"status":`...)
	b = AppendJSONString(b, string(inv.Status))
	b = append(b, `,"currency":`...)
	b = AppendJSONString(b, inv.Currency)
	b = inv.appendAmounts(b, false)
	b = append(b, `,"environment":`...)
	b = AppendJSONString(b, string(inv.Environment))
	b = append(b, `,"invoice_title":`...)
	b = AppendJSONString(b, inv.InvoiceTitle)
	b = append(b, `,"invoice_footer":`...)
	b = AppendJSONString(b, inv.InvoiceFooter)
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
