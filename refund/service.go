// Package refund is the refunds service (decisions.md, "Refunds, and money that
// needs a person"): it checks a merchant's refund request, plans it on the
// invoice's payments with the token's rate, and hands it to the store with its
// decision (decide.go), which plans it again on the rows the store locked; it
// renders claim links and takes the payor's address through one. A claim, a
// cancel and the merchant's own-wallet choice are decided here too, on the
// refund and payout the store locked.
package refund

import (
	"context"
	"crypto/sha256"
	"math/big"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/payment"
)

// Service creates, reads, cancels and claims refunds.
type Service struct {
	Store     Store
	Payments  kassa.PaymentService  // the invoice's payments, to plan the token before the store locks them
	Registry  kassa.Registry        // the refund's token
	Rates     kassa.RateSource      // today's rate, for rate "current"; nil: none
	Signer    payment.SessionSigner // the server secret's signer: claim tokens
	PublicURL string                // base of claim links
}

// Create is a merchant's refund request as the API decodes it.
type Create struct {
	PaymentID   string
	AmountUSD   *kassa.Millis
	AmountUnits *big.Int
	Rate        kassa.RefundRate // "" : paid
	Address     string
	Reason      string
}

// Create checks c and creates the refund. On mainnet a destination address needs
// a dashboard session: an API key may only create claim links, so a leaked key
// cannot send money to an address of its choosing.
func (s *Service) Create(ctx context.Context, p kassa.Principal, invoiceID string, c Create) (*kassa.Refund, error) {
	req, _, err := s.request(ctx, p, invoiceID, c)
	if err != nil {
		return nil, err
	}
	if req.Address == "" {
		h := sha256.Sum256([]byte(s.claimToken(req.ID)))
		req.ClaimHash = h[:]
	}
	r, err := s.Store.CreateRefund(ctx, p.MerchantID, invoiceID, req, DecideCreate(p, req))
	if err != nil {
		return nil, err
	}
	return s.decorate(r), nil
}

// request checks c and makes it the store's request: the token planned from the
// invoice's payments (returned too), today's rate for rate current.
func (s *Service) request(ctx context.Context, p kassa.Principal, invoiceID string, c Create) (Request, []*kassa.Payment, error) {
	req := Request{ID: kassa.NewUUID(), PaymentID: c.PaymentID, AmountUSD: c.AmountUSD,
		AmountUnits: c.AmountUnits, Rate: c.Rate, Reason: c.Reason}
	switch {
	case c.AmountUSD != nil && c.AmountUnits != nil:
		return req, nil, kassa.Invalidf("amount_token_units", "parameter_conflict", "Give amount_usd or amount_token_units, not both.")
	case c.AmountUSD != nil && *c.AmountUSD <= 0:
		return req, nil, kassa.Invalidf("amount_usd", "invalid_amount", "amount_usd must be positive.")
	case c.AmountUnits != nil && c.AmountUnits.Sign() <= 0:
		return req, nil, kassa.Invalidf("amount_token_units", "invalid_amount", "amount_token_units must be a positive integer.")
	case utf8.RuneCountInString(c.Reason) > kassa.MaxRefundReason:
		return req, nil, kassa.Invalidf("reason", "invalid_reason", "A reason is at most %d characters.", kassa.MaxRefundReason)
	}
	switch c.Rate {
	case "":
		req.Rate = kassa.RefundRatePaid
	case kassa.RefundRatePaid, kassa.RefundRateCurrent:
	default:
		return req, nil, kassa.Invalidf("rate", "invalid_rate", "rate is paid or current.")
	}
	if c.Address != "" {
		if err := kassa.CheckEVMAddress("address", c.Address); err != nil {
			return req, nil, err
		}
		if p.Environment == kassa.Mainnet && !p.Dashboard() {
			return req, nil, kassa.Errorf(kassa.KindPermission, "refund_address_needs_dashboard",
				"On mainnet an API key may only create refunds the payor claims (no address); a refund to an address needs the dashboard.")
		}
		req.Address = kassa.ChecksumAddress(c.Address)
	}
	_, pays, err := s.Payments.InvoiceWithPayments(ctx, p.MerchantID, invoiceID, 0)
	if err != nil {
		return req, nil, err
	}
	all := req
	all.AmountUSD, all.AmountUnits, all.Rate = nil, nil, kassa.RefundRatePaid
	plan, err := Refundable(pays, nil, all)
	if err != nil {
		return req, nil, err
	}
	t, ok := s.Registry.Token(p.Environment, plan.TokenID)
	if !ok || t.Network != plan.Network {
		return req, nil, kassa.Errorf(kassa.KindConflict, "token_not_accepted",
			"This payment's token is not one this service knows, so Kassa cannot send it back.")
	}
	req.Token = t
	if req.Rate == kassa.RefundRateCurrent && req.AmountUnits == nil {
		if s.Rates == nil {
			return req, nil, kassa.Errorf(kassa.KindConflict, "rate_unavailable", "No current rate of %s is known.", t.Symbol)
		}
		r, err := s.Rates.Rate(ctx, t)
		if err != nil {
			return req, nil, err
		}
		req.CurrentRate = r.USDPerToken
	}
	return req, pays, nil
}

// claimToken is the claim token of refund id: signed by the server secret, so a
// claim link can be shown again without being stored; the store keeps only its
// hash.
func (s *Service) claimToken(id string) string { return s.Signer.Sign("kassa refund claim " + id) }

// decorate gives a refund awaiting its address its claim link.
func (s *Service) decorate(r *kassa.Refund) *kassa.Refund {
	if r.Status == kassa.RefundAwaitingAddress {
		r.ClaimURL = strings.TrimRight(s.PublicURL, "/") + "/refund/" + r.ID + "?" + url.Values{"t": {s.claimToken(r.ID)}}.Encode()
	}
	return r
}

// Get reads one of the merchant's refunds.
func (s *Service) Get(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error) {
	r, err := s.Store.Refund(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return s.decorate(r), nil
}

// List lists an invoice's refunds, newest first.
func (s *Service) List(ctx context.Context, p kassa.Principal, invoiceID string) ([]*kassa.Refund, error) {
	rs, err := s.Store.InvoiceRefunds(ctx, p, invoiceID)
	for _, r := range rs {
		s.decorate(r)
	}
	return rs, err
}

// Cancel cancels a refund not yet sent, deciding on the rows the store locked
// (decideCancel).
func (s *Service) Cancel(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error) {
	return s.Store.CancelRefund(ctx, p.MerchantID, id, func(r *kassa.Refund, payout outbox.PayoutStatus) error {
		return decideCancel(p, r, payout)
	})
}

// decideCancel says whether p may cancel refund r whose payout is in status payout
// ("" for none): a refund of the other environment is not found; only a refund not
// yet sent can be canceled, and only while its transfer is unsigned (its payout
// queued or funding, or failed already: withdrawn for the merchant's own wallet),
// since a signed one may be on its way (409 refund_not_cancelable).
func decideCancel(p kassa.Principal, r *kassa.Refund, payout outbox.PayoutStatus) error {
	if r.Environment != p.Environment {
		return kassa.NotFound("refund")
	}
	if !r.Status.Cancelable() {
		return kassa.Errorf(kassa.KindConflict, "refund_not_cancelable", "This refund is %s; only a refund not yet sent can be canceled.", r.Status)
	}
	switch payout {
	case "", outbox.PayoutQueued, outbox.PayoutFunding, outbox.PayoutFailed:
		return nil
	}
	return kassa.Errorf(kassa.KindConflict, "refund_not_cancelable", "This refund's transfer is already signed; it can no longer be canceled.")
}

// Claim gives a refund awaiting its address the address the payor entered
// through its claim link (token), checksummed where mixed case.
func (s *Service) Claim(ctx context.Context, id, token, address string) (*kassa.Refund, error) {
	if err := kassa.CheckEVMAddress("address", address); err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(token))
	return s.Store.ClaimRefund(ctx, id, kassa.ChecksumAddress(address), DecideClaim(h[:]))
}

// ByClaim reads a refund and its shop's name through its claim link (token),
// for the payor's page: 404 for a wrong token, whether or not the refund
// exists; a claimed refund is still found, so the link follows it.
func (s *Service) ByClaim(ctx context.Context, id, token string) (*Claim, error) {
	h := sha256.Sum256([]byte(token))
	return s.Store.RefundByClaim(ctx, id, h[:])
}
