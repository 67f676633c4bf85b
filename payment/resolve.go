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
// bound both (kassa.InvoicePayment.CheckResolve, judged by the store on the
// locked rows).
func (s *Service) Resolve(ctx context.Context, p kassa.Principal, invoiceID, paymentID string, how kassa.Resolution, note string) (*kassa.InvoicePayment, error) {
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
	return s.Payments.ResolvePayment(ctx, p, invoiceID, paymentID, req)
}

// knownToken reports whether r's token is in the registry, on r's network.
func (s *Service) knownToken(r *kassa.InvoicePayment) bool {
	if s.Registry == nil {
		return false
	}
	t, ok := s.Registry.Token(r.Environment, r.TokenID)
	return ok && t.Network == r.Network
}
