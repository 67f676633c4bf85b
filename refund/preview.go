package refund

import (
	"context"

	"github.com/kassapay/kassa"
)

// Preview is what Create would make of a request now, without making it: the
// amount planned on the invoice's payments and refunds as they stand, in its
// token, to its address ("" : a claim link).
type Preview struct {
	Plan
	Token   kassa.Token
	Rate    kassa.RefundRate
	Address string // checksummed; "" : the payor gives it through a claim link
}

// Preview checks c as Create does and plans it on the invoice's payments and
// refunds as they are now (unlocked: Create plans again on the locked rows, so
// a refund created in between can still make Create refuse). It writes nothing.
// With no amount it is all that is still refundable.
func (s *Service) Preview(ctx context.Context, p kassa.Principal, invoiceID string, c Create) (*Preview, error) {
	req, pays, err := s.request(ctx, p, invoiceID, c)
	if err != nil {
		return nil, err
	}
	refunds, err := s.Store.InvoiceRefunds(ctx, p, invoiceID)
	if err != nil {
		return nil, err
	}
	plan, err := Refundable(pays, refunds, req)
	if err != nil {
		return nil, err
	}
	return &Preview{Plan: plan, Token: req.Token, Rate: req.Rate, Address: req.Address}, nil
}

// NeedsProof reports whether a refund request c by p needs the merchant to
// prove it is them again (current password, and code with two-step on): one to
// an address the session names, on mainnet. Money leaves for a place the session
// chooses, as a settlement target change sends it; a claim link sends nothing
// until the payor gives an address, and devnet money is not real.
func NeedsProof(p kassa.Principal, c Create) bool {
	return p.Environment == kassa.Mainnet && c.Address != ""
}
