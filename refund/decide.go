package refund

import (
	"crypto/subtle"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// CreateDecision is the rule of a refund's creation, which the store runs on the
// invoice it locked with the invoice's payments and refunds: it returns the plan
// the store writes, or the refusal, and then nothing is written.
type CreateDecision func(inv *kassa.Invoice, payments []*kassa.Payment, refunds []*kassa.Refund) (Plan, error)

// DecideCreate is the rule of p's request req: an invoice of another environment
// than p's is 403 environment_mismatch (a devnet credential cannot refund a
// mainnet invoice); the refund is planned on what the payments left
// (Refundable), so refunds created at once never exceed what is refundable; a
// plan in another token than req's, checked before the lock, is 409
// refund_conflict (the payments changed meanwhile).
func DecideCreate(p kassa.Principal, req Request) CreateDecision {
	return func(inv *kassa.Invoice, payments []*kassa.Payment, refunds []*kassa.Refund) (Plan, error) {
		if inv.Environment != p.Environment {
			return Plan{}, kassa.Errorf(kassa.KindPermission, "environment_mismatch",
				"This invoice is in %s; a %s credential cannot refund it.", inv.Environment, p.Environment)
		}
		plan, err := Refundable(payments, refunds, req)
		if err != nil {
			return Plan{}, err
		}
		if plan.TokenID != req.Token.ID || plan.Network != req.Token.Network {
			return Plan{}, kassa.Errorf(kassa.KindConflict, "refund_conflict", "This invoice's payments changed meanwhile; retry.")
		}
		return plan, nil
	}
}

// DecideClaim is the rule of a claim with the token whose hash is tokenHash on
// refund r, locked, at now: a token not r's (compared in constant time), or past
// the claim's expiry, is 404; a refund no longer awaiting its address is 409
// refund_claimed.
func DecideClaim(tokenHash []byte) func(r *kassa.Refund, now time.Time) error {
	return func(r *kassa.Refund, now time.Time) error {
		if len(r.ClaimHash) == 0 || subtle.ConstantTimeCompare(r.ClaimHash, tokenHash) != 1 || !now.Before(r.ClaimExpires) {
			return kassa.NotFound("refund")
		}
		if r.Status != kassa.RefundAwaitingAddress {
			return kassa.Errorf(kassa.KindConflict, "refund_claimed", "This refund was already claimed (it is %s).", r.Status)
		}
		return nil
	}
}

// DecideOwnWallet is the rule of p taking refund r over to pay it from their own
// wallet, on r and its payout's status ("" for none) locked: a refund of another
// environment is not found; one the merchant's already is answered as it is;
// otherwise r must be pending with its address (kassa.Refund.CanPayFromOwnWallet)
// and its transfer unsigned (payout queued or funding, failed already, or none),
// else 409 refund_being_sent.
func DecideOwnWallet(p kassa.Principal) func(r *kassa.Refund, payout outbox.PayoutStatus) error {
	return func(r *kassa.Refund, payout outbox.PayoutStatus) error {
		if r.Environment != p.Environment {
			return kassa.NotFound("refund")
		}
		if r.OwnWallet != nil {
			return nil
		}
		if err := r.CanPayFromOwnWallet(); err != nil {
			return err
		}
		switch payout {
		case "", outbox.PayoutQueued, outbox.PayoutFunding, outbox.PayoutFailed:
			return nil
		}
		return kassa.Errorf(kassa.KindConflict, "refund_being_sent",
			"Kassa already signed this refund's transfer; it is on its way and cannot be paid from your wallet.")
	}
}

// DecideLetKassaPay is the rule of p handing refund r, locked, back to Kassa: a
// refund of another environment is not found; no transfer paying it may have
// been seen (kassa.Refund.CanLetKassaPay), so it is never paid twice.
func DecideLetKassaPay(p kassa.Principal) func(r *kassa.Refund) error {
	return func(r *kassa.Refund) error {
		if r.Environment != p.Environment {
			return kassa.NotFound("refund")
		}
		return r.CanLetKassaPay()
	}
}
