package kassa

import "time"

// AttentionReason says why a payment needs a person (decisions.md, "Refunds, and
// money that needs a person"): the attention_reason of the payment object. ""
// (null on the wire) when it needs none.
type AttentionReason string

// Attention reasons.
const (
	AttentionLate             AttentionReason = "late"              // seen after the invoice expired, or no rate could value it
	AttentionWrongToken       AttentionReason = "wrong_token"       // a token or network other than the locked one
	AttentionFinalInvoice     AttentionReason = "final_invoice"     // money on a paid or canceled invoice
	AttentionReorged          AttentionReason = "reorged"           // lost to a reorganisation
	AttentionSettlementFailed AttentionReason = "settlement_failed" // counted, but its settlement failed
)

// Resolution is how a person resolved a payment that needed one: the resolution
// of the payment object; "" (null) while unresolved.
type Resolution string

// Resolutions.
const (
	ResolutionAccepted  Resolution = "accepted"  // credited to its invoice
	ResolutionRefunded  Resolution = "refunded"  // paid back
	ResolutionDismissed Resolution = "dismissed" // kept by the merchant without credit
)

// MaxResolutionNote is the longest note a merchant may give with a resolution.
const MaxResolutionNote = 255

// SetAsideReason is why a transfer arriving at an invoice in status current is
// set aside for a person (manual_retry), or "" when it is not: money on an
// expired invoice, or one no rate could value, is late; money on a paid or
// canceled invoice is on a final invoice; a token other than the locked one is the
// wrong token. ClassifyPayment sets aside exactly these.
func SetAsideReason(current InvoiceStatus, lockedToken int64, a Arrival) AttentionReason {
	switch {
	case current == StatusExpired:
		return AttentionLate
	case current.Final():
		return AttentionFinalInvoice
	case lockedToken != 0 && a.TokenID != lockedToken:
		return AttentionWrongToken
	case a.Unpriced:
		return AttentionLate
	}
	return ""
}

// Resolvable reports whether a merchant may accept or dismiss r: it is set aside
// (manual_retry) and not yet resolved.
func (r *Payment) Resolvable() bool {
	return r.Status == PaymentManualRetry && r.Resolution == ""
}

// Resolve records a merchant's resolution of r at now. Accepting confirms it: it
// counts toward its invoice from then on, at its USD value when seen.
func (r *Payment) Resolve(how Resolution, note string, now time.Time) {
	r.Resolution, r.ResolutionNote = how, note
	t := now
	r.ResolvedAt = &t
	if how == ResolutionAccepted {
		r.Status = PaymentConfirmed
		if r.ConfirmedAt == nil {
			r.ConfirmedAt = &t
		}
	}
}

// ResolveRequest is a merchant's accept or dismiss of a set-aside payment, with
// what the rules need to judge it.
type ResolveRequest struct {
	How  Resolution // ResolutionAccepted or ResolutionDismissed
	Note string     // at most MaxResolutionNote characters
	// Confirmations is how many its network needs (0 for a simulated payment).
	Confirmations int
}

// CheckResolve says whether r may be resolved as req asks. Only a payment set
// aside and not yet resolved may be (409 payment_resolved, payment_not_set_aside).
// Money is credited or kept only once it is on the canonical chain with its
// network's confirmations (409 payment_not_confirmed): accepting a transfer a
// reorganisation took away would credit money that does not exist; one that
// never confirmed may still vanish. A payment lost to a reorganisation may be
// dismissed (nothing is then settled: there is nothing to move). Accepting money
// no rate valued would credit nothing (409 payment_unpriced).
func (r *Payment) CheckResolve(req ResolveRequest) error {
	switch {
	case r.Resolution != "":
		return Errorf(KindConflict, "payment_resolved", "This payment was already %s.", r.Resolution)
	case r.Status != PaymentManualRetry:
		return Errorf(KindConflict, "payment_not_set_aside",
			"Only a payment set aside for a person (manual_retry) can be accepted or dismissed; this one is %s.", r.Status)
	case r.Orphaned() && req.How == ResolutionDismissed:
		return nil
	case r.Orphaned() || (r.OnChain() && r.Confirmations < req.Confirmations):
		return Errorf(KindConflict, "payment_not_confirmed",
			"This transfer is not on chain with its %d confirmations; wait for them before accepting it.", req.Confirmations)
	case req.How == ResolutionAccepted && r.AmountUSD == 0:
		return Errorf(KindConflict, "payment_unpriced", "No rate valued this transfer, so accepting it would credit nothing; refund or dismiss it.")
	}
	return nil
}
