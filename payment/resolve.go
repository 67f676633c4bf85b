package payment

import (
	"context"
	"unicode/utf8"

	"github.com/kassapay/kassa"
)

// Resolve records a merchant's accept or dismiss of a payment set aside for a
// person (decisions.md, "Refunds, and money that needs a person"). Accepting
// credits it to its invoice at its USD value when seen: only a token of the
// registry (409 token_not_accepted). The payment's network's confirmations
// bound both; the rest is DecideResolve's, judged on the rows the store locked.
func (s *Service) Resolve(ctx context.Context, p kassa.Principal, invoiceID, paymentID string, how kassa.Resolution, note string) (*kassa.Payment, error) {
	if utf8.RuneCountInString(note) > kassa.MaxResolutionNote {
		return nil, kassa.Invalidf("note", "invalid_note", "A note is at most %d characters.", kassa.MaxResolutionNote)
	}
	if s.Payments == nil {
		return nil, kassa.NotFound("payment")
	}
	_, rs, err := s.Payments.InvoiceWithPayments(ctx, p.MerchantID, invoiceID, 0)
	if err != nil {
		return nil, err
	}
	req := kassa.ResolveRequest{How: how, Note: note}
	for _, r := range rs {
		if r.ID != paymentID {
			continue
		}
		if how == kassa.ResolutionAccepted && !s.knownToken(r) {
			return nil, kassa.Errorf(kassa.KindConflict, "token_not_accepted",
				"This payment's token is not one this service accepts, so it cannot be credited; refund or dismiss it.")
		}
		if r.OnChain() {
			req.Confirmations = Tracker{Registry: s.Registry}.ConfirmationsNeeded(r.Environment, r.Network)
		}
	}
	return s.Payments.ResolvePayment(ctx, p.MerchantID, invoiceID, paymentID, req, DecideResolve(p, req))
}

// DecideResolve is the rule of a resolution req by p, run by the store on the
// locked invoice, its payment (nil: none of that id) and the payment's refunds
// under way: an invoice of the other environment is refused
// (environment_mismatch), then kassa.Payment.CheckResolve; money being refunded
// is neither credited nor kept (payment_being_refunded), as the refund may be
// paid from the payment's deposit address, which a settlement would empty.
func DecideResolve(p kassa.Principal, req kassa.ResolveRequest) func(inv *kassa.Invoice, pay *kassa.Payment, refunding int) error {
	return func(inv *kassa.Invoice, pay *kassa.Payment, refunding int) error {
		if inv.Environment != p.Environment {
			return kassa.Errorf(kassa.KindPermission, "environment_mismatch",
				"This invoice is in %s; a %s credential cannot resolve its payments.", inv.Environment, p.Environment)
		}
		if pay == nil {
			return kassa.NotFound("payment")
		}
		if err := pay.CheckResolve(req); err != nil {
			return err
		}
		if refunding > 0 {
			return kassa.Errorf(kassa.KindConflict, "payment_being_refunded",
				"This payment has a refund under way; cancel the refund first, or let it finish.")
		}
		return nil
	}
}

// knownToken reports whether r's token is in the registry, on r's network.
func (s *Service) knownToken(r *kassa.Payment) bool {
	if s.Registry == nil {
		return false
	}
	t, ok := s.Registry.Token(r.Environment, r.TokenID)
	return ok && t.Network == r.Network
}
