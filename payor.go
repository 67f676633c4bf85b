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
