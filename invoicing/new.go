package invoicing

import (
	"time"

	"github.com/kassapay/kassa"
)

// New builds the merchant's new unpaid invoice in env from a validated request at
// now, refusing mainnet to a merchant without mainnet access. What the request
// leaves out comes from here: expiry kassa.DefaultInvoiceTTL, title and footer the
// merchant's company name, return URL the merchant's default (enabled), metadata
// an empty object.
func New(m *kassa.Merchant, env kassa.Environment, c kassa.InvoiceCreate, now time.Time) (*kassa.Invoice, error) {
	if !m.Allows(env) {
		return nil, kassa.ErrMainnetNotEnabled()
	}
	ttl := kassa.DefaultInvoiceTTL
	if c.ExpiresIn != nil {
		ttl = *c.ExpiresIn
	}
	inv := &kassa.Invoice{
		ID: kassa.NewTimeUUID(now), MerchantID: m.ID, Environment: env, Status: kassa.StatusUnpaid,
		Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: c.Amount,
		Description: c.Description, CustomerID: c.CustomerID, CustomerEmail: c.CustomerEmail,
		InvoiceTitle: m.CompanyName, InvoiceFooter: m.CompanyName,
		PaymentReturnURL: m.DefaultReturnURL, PaymentReturnURLEnabled: true,
		ReceiverOverrideEnabled: c.ReceiverOverrideEnable, ReceiverOverrideAddress: c.ReceiverOverrideAddress,
		Questions: c.Questions, Metadata: c.Metadata, CommerceOrderID: c.CommerceOrderID,
		ExpiresAt: now.Add(ttl).Truncate(time.Microsecond), CreatedAt: now,
	}
	if c.InvoiceTitle != nil {
		inv.InvoiceTitle = *c.InvoiceTitle
	}
	if c.InvoiceFooter != nil {
		inv.InvoiceFooter = *c.InvoiceFooter
	}
	if c.PaymentReturnURL != nil {
		inv.PaymentReturnURL = c.PaymentReturnURL
	}
	if c.PaymentReturnURLEnabled != nil {
		inv.PaymentReturnURLEnabled = *c.PaymentReturnURLEnabled
	}
	if inv.Metadata == nil {
		inv.Metadata = []byte("{}")
	}
	return inv, nil
}
