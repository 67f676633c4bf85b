package kassa

import (
	"context"
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

// payorInvoiceJSON is the payor's view of an invoice: what the payment page shows.
type payorInvoiceJSON struct {
	Object   string        `json:"object"`
	ID       string        `json:"id"`
	Status   InvoiceStatus `json:"status"`
	Currency string        `json:"currency"`
	invoiceAmounts
	Environment      Environment    `json:"environment"`
	InvoiceTitle     string         `json:"invoice_title"`
	InvoiceFooter    string         `json:"invoice_footer"`
	Description      *string        `json:"description"`
	ExpiresAt        string         `json:"expires_at"`
	PaidAt           *string        `json:"paid_at"`
	Questions        *questionsJSON `json:"questions"`
	PaymentReturnURL *string        `json:"payment_return_url"`
	LockedTokenID    *int64         `json:"locked_token_id"`
	LockedNetwork    *string        `json:"locked_network"`
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
	inv := p.Invoice
	v := payorInvoiceJSON{Object: "payor_invoice", ID: inv.ID, Status: inv.Status, Currency: inv.Currency,
		invoiceAmounts: inv.amounts(), Environment: inv.Environment,
		InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter, Description: inv.Description,
		ExpiresAt: FormatTime(inv.ExpiresAt), PaidAt: FormatOptTime(inv.PaidAt),
		LockedTokenID: inv.LockedTokenID, LockedNetwork: p.LockedNetwork}
	if inv.Questions != nil {
		v.Questions = &questionsJSON{Questions: inv.Questions}
	}
	if inv.PaymentReturnURLEnabled {
		v.PaymentReturnURL = inv.PaymentReturnURL
	}
	return MarshalJSON(v)
}
