package kassa

import "time"

// WatchAfterExpiry is how long the chain is watched after an invoice's expiry: late
// money seen within it is kept (manual_retry); after it nobody looks.
const WatchAfterExpiry = 24 * time.Hour

// QuoteLock is how long a payment-address quote holds its rate: a payor who sends
// the quoted amount before it runs out has paid in full, whatever the market did.
const QuoteLock = 15 * time.Minute

// Final reports whether no payment can move an invoice out of status s by itself.
func (s InvoiceStatus) Final() bool {
	return s == StatusPaid || s == StatusExpired || s == StatusCanceled
}

// Amounts are the money an invoice has received, as its receipts add up.
type Amounts struct {
	Confirmed Millis // confirmed receipts, USD value at their locked rates
	Pending   Millis // seen on chain, not yet confirmed
}

// NextStatus is the invoice lifecycle as one pure function: the status an invoice in
// status current should have, given its receipts' amounts, the merchant's
// underpayment tolerance, its expiry and the time now.
//
//   - paid, expired and canceled are final: they never change here.
//   - confirmed + tolerance >= amount (with some money confirmed): paid.
//   - past expires_at with nothing pending: expired. A payment seen before expiry
//     that is still pending keeps the invoice open until it confirms or fails.
//   - some money confirmed: underpaid; none: unpaid (a receipt lost to a chain
//     reorganisation moves underpaid back to unpaid).
func NextStatus(current InvoiceStatus, amount Millis, got Amounts, tolerance Millis, expiresAt, now time.Time) InvoiceStatus {
	if current.Final() {
		return current
	}
	if got.Confirmed > 0 && got.Confirmed+tolerance >= amount {
		return StatusPaid
	}
	if !now.Before(expiresAt) && got.Pending == 0 {
		return StatusExpired
	}
	if got.Confirmed > 0 {
		return StatusUnderpaid
	}
	return StatusUnpaid
}

// EffectiveStatus is the status an invoice shows at now. Expiry needs no background
// job to be visible: an open invoice read after its expires_at reads as expired.
func (inv *Invoice) EffectiveStatus(now time.Time) InvoiceStatus {
	if inv.Status.Final() {
		return inv.Status
	}
	if !now.Before(inv.ExpiresAt) && inv.AmountPending == 0 {
		return StatusExpired
	}
	return inv.Status
}

// CheckCancel says whether an invoice in status s with payments recorded against
// it (any status: pending, confirmed, or kept for a person) may be canceled: only
// an unpaid one (invoice_not_cancelable) without any payment
// (invoice_has_payments), so money pending or set aside is resolved first.
func CheckCancel(s InvoiceStatus, payments int) error {
	if s != StatusUnpaid {
		return Errorf(KindConflict, "invoice_not_cancelable", "Only unpaid invoices can be canceled; this invoice is %s.", s)
	}
	if payments > 0 {
		return Errorf(KindConflict, "invoice_has_payments",
			"This invoice has received payments (%d); it cannot be canceled.", payments)
	}
	return nil
}
