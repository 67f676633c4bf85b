package kassa

// CheckTokenLock says whether an invoice in status s, locked to token locked (nil:
// none), may be paid in token: not once it is over, and while it is underpaid only
// in the locked token.
func CheckTokenLock(s InvoiceStatus, locked *int64, token int64) error {
	switch {
	case s == StatusPaid:
		return Errorf(KindConflict, "invoice_paid", "This invoice is already paid.")
	case s == StatusExpired || s == StatusCanceled:
		return Errorf(KindGone, "invoice_"+string(s), "This invoice is %s.", s)
	case s == StatusUnderpaid && locked != nil && *locked != token:
		return Invalidf("token_id", "token_locked", "This invoice is partly paid; pay the rest in the same token (id %d).", *locked)
	}
	return nil
}
