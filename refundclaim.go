package kassa

import "time"

// ClaimLapsed reports whether r still waits for the payor's address at now but
// its claim link has ended (RefundClaimTTL after creation): the payor is told
// to contact the shop. A claimed refund's link keeps working to follow it.
func (r *Refund) ClaimLapsed(now time.Time) bool {
	return r.Status == RefundAwaitingAddress && !now.Before(r.ClaimExpires)
}

// Final reports whether a refund in status s is where refunds end (confirmed,
// failed, canceled): a page following it stops there. (A reorganisation may
// still take a confirmed one back to sent; a reload shows it.)
func (s RefundStatus) Final() bool {
	return s == RefundConfirmed || s == RefundFailed || s == RefundCanceled
}
