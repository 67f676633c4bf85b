package invoicing

import (
	"context"

	"github.com/kassapay/kassa"
)

// Decide is a service's decision on a locked invoice: the store calls it inside
// its transaction, after locking the row, with the invoice at its effective status
// and the number of payments recorded against it, and persists the change only
// when it returns nil. The store decides nothing itself.
type Decide func(inv *kassa.Invoice, payments int) error

// CancelInvoice cancels the principal's unpaid invoice with invoice.canceled and
// invoice.updated. The rules are decided here, on the row the store locked: an
// invoice of the other environment is refused (environment_mismatch: a devnet key
// never changes mainnet money, nor the reverse), then kassa.CheckCancel (only an
// unpaid invoice without payments).
func (s *Service) CancelInvoice(ctx context.Context, p kassa.Principal, id string) (*kassa.Invoice, error) {
	return s.Store.CancelInvoice(ctx, p.MerchantID, id, func(inv *kassa.Invoice, payments int) error {
		return decideCancel(p, inv, payments)
	})
}

// decideCancel is the cancel rule of CancelInvoice: whether p may cancel inv with
// payments recorded against it.
func decideCancel(p kassa.Principal, inv *kassa.Invoice, payments int) error {
	if inv.Environment != p.Environment {
		return kassa.Errorf(kassa.KindPermission, "environment_mismatch",
			"This invoice is in %s; a %s credential cannot cancel it.", inv.Environment, p.Environment)
	}
	return kassa.CheckCancel(inv.Status, payments)
}
