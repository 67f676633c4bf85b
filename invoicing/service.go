package invoicing

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// Store persists invoices. It decides nothing: what to store comes from Service.
type Store interface {
	// Invoice, Invoices and InvoiceTotals are the reads of kassa.InvoiceService,
	// served by the store as they are.
	Invoice(ctx context.Context, merchantID int64, id string) (*kassa.Invoice, error)
	Invoices(ctx context.Context, f kassa.InvoiceFilter) ([]*kassa.Invoice, bool, error)
	InvoiceTotals(ctx context.Context, f kassa.InvoiceTotalsFilter) (*kassa.InvoiceTotals, error)
	// CheckStorable refuses text the domain's validation lets through but the
	// store's columns cannot hold.
	CheckStorable(c kassa.InvoiceCreate) error
	// InvoiceMerchant returns the merchant a new invoice in env is made for; a
	// cached row may be a moment old, but never one refusing env when the stored
	// row allows it.
	InvoiceMerchant(ctx context.Context, merchantID int64, env kassa.Environment) (*kassa.Merchant, error)
	// InsertInvoice stores a new invoice with its session token (kept only as a
	// hash) and its invoice.created event in one transaction; behind the
	// idempotency layer (save not nil) the response is saved in it too.
	InsertInvoice(ctx context.Context, inv *kassa.Invoice, token string, save *kassa.SavedResponse[kassa.CreatedInvoice]) error
	// CancelInvoice locks the merchant's invoice id, counts the payments recorded
	// against it and asks decide (with the invoice at its effective status); when
	// decide returns nil it cancels the invoice with invoice.canceled and
	// invoice.updated, and the invoice's order follows, in the same transaction.
	// decide's error is returned as it is, and nothing is written.
	CancelInvoice(ctx context.Context, merchantID int64, id string, decide Decide) (*kassa.Invoice, error)
	// Now is the store's clock, truncated to the microsecond its columns keep.
	Now() time.Time
}

// Service is the invoice service; it implements kassa.InvoiceService.
type Service struct {
	Store
}

var _ kassa.InvoiceService = (*Service)(nil)

// Over returns the invoice service over s.
func Over(s Store) *Service { return &Service{Store: s} }

// CreateInvoice makes the principal's new invoice (Prepare) and stores it with
// its invoice.created event.
func (s *Service) CreateInvoice(ctx context.Context, p kassa.Principal, c kassa.InvoiceCreate,
	save *kassa.SavedResponse[kassa.CreatedInvoice]) (*kassa.Invoice, string, error) {
	inv, token, err := s.Prepare(ctx, p, c)
	if err != nil {
		return nil, "", err
	}
	if err := s.Store.InsertInvoice(ctx, inv, token, save); err != nil {
		return nil, "", err
	}
	return inv, token, nil
}

// Prepare checks a request for a new invoice in the principal's environment and
// returns the invoice it makes, with its payment session token, not yet stored:
// the request's own checks first, then the environment, what the store can hold,
// and the merchant's mainnet access; the defaults come from the merchant.
func (s *Service) Prepare(ctx context.Context, p kassa.Principal, c kassa.InvoiceCreate) (*kassa.Invoice, string, error) {
	if err := c.Validate(); err != nil {
		return nil, "", err
	}
	if !p.Environment.Valid() {
		return nil, "", kassa.Invalidf("environment", "invalid_environment", "environment must be devnet or mainnet.")
	}
	if err := s.Store.CheckStorable(c); err != nil {
		return nil, "", err
	}
	m, err := s.Store.InvoiceMerchant(ctx, p.MerchantID, p.Environment)
	if err != nil {
		return nil, "", err
	}
	inv, err := New(m, p.Environment, c, s.Store.Now())
	if err != nil {
		return nil, "", err
	}
	return inv, kassa.NewSessionToken(inv.ID), nil
}
