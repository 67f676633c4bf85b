package invoicejson

import (
	"encoding/json"

	"github.com/kassapay/kassa"
)

// The reflection-based encoders the hand-written ones replaced, kept as the
// reference they must match byte for byte (invoiceencode_test.go).

type refInvoiceJSON struct {
	Object      string              `json:"object"`
	ID          string              `json:"id"`
	MerchantID  int64               `json:"merchant_id"`
	Status      kassa.InvoiceStatus `json:"status"`
	InvoiceType string              `json:"invoice_type"`
	Currency    string              `json:"currency"`
	refAmounts
	CustomerID              *string              `json:"customer_id"`
	PayerWalletAddress      *string              `json:"payer_wallet_address"`
	PayerWalletNetwork      *string              `json:"payer_wallet_network"`
	CommerceOrderID         *string              `json:"commerce_order_id"`
	Environment             kassa.Environment    `json:"environment"`
	ExpiresAt               *string              `json:"expires_at"`
	CreatedAt               *string              `json:"created_at"`
	PaidAt                  *string              `json:"paid_at"`
	LastPaymentAt           *string              `json:"last_payment_at"`
	CanceledAt              *string              `json:"canceled_at"`
	Description             *string              `json:"description"`
	CustomerEmail           *string              `json:"customer_email"`
	InvoiceTitle            string               `json:"invoice_title"`
	InvoiceFooter           string               `json:"invoice_footer"`
	PaymentReturnURL        *string              `json:"payment_return_url"`
	PaymentReturnURLEnabled bool                 `json:"payment_return_url_enabled"`
	ReceiverOverrideEnabled bool                 `json:"receiver_override_enabled"`
	ReceiverOverrideAddress *string              `json:"receiver_override_address"`
	Questions               *refQuestionsObj     `json:"questions"`
	FormResponses           []kassa.FormResponse `json:"form_responses"`
	Metadata                json.RawMessage      `json:"metadata"`
	LatestPayment           json.RawMessage      `json:"latest_payment,omitempty"`
	Payments                json.RawMessage      `json:"payments,omitempty"`
}

type refAmounts struct {
	Amount                 kassa.Millis  `json:"amount"`
	AmountDecimal          string        `json:"amount_decimal"`
	AmountPaid             kassa.Millis  `json:"amount_paid"`
	AmountPaidDecimal      string        `json:"amount_paid_decimal"`
	AmountRemaining        kassa.Millis  `json:"amount_remaining"`
	AmountRemainingDecimal string        `json:"amount_remaining_decimal"`
	AmountPending          kassa.Millis  `json:"amount_pending"`
	AmountPendingDecimal   string        `json:"amount_pending_decimal"`
	AmountRefunded         *kassa.Millis `json:"amount_refunded,omitempty"`
	AmountRefundedDecimal  *string       `json:"amount_refunded_decimal,omitempty"`
	AmountUnit             string        `json:"amount_unit"`
}

type refQuestionsObj struct {
	Questions []kassa.Question `json:"questions"`
}

func refAmountsOf(inv *kassa.Invoice, refunded bool) refAmounts {
	rem := inv.AmountRemaining()
	a := refAmounts{
		Amount: inv.Amount, AmountDecimal: inv.Amount.Decimal(),
		AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(),
		AmountPending: inv.AmountPending, AmountPendingDecimal: inv.AmountPending.Decimal(),
		AmountUnit: "usd_millis",
	}
	if refunded {
		d := inv.AmountRefunded.Decimal()
		a.AmountRefunded, a.AmountRefundedDecimal = &inv.AmountRefunded, &d
	}
	return a
}

func refCanonical(inv *kassa.Invoice) refInvoiceJSON {
	meta := json.RawMessage(inv.Metadata)
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	var qs *refQuestionsObj
	if inv.Questions != nil {
		qs = &refQuestionsObj{Questions: inv.Questions}
	}
	return refInvoiceJSON{
		Object: "invoice", ID: inv.ID, MerchantID: inv.MerchantID, Status: inv.Status,
		InvoiceType: inv.Type, Currency: inv.Currency, refAmounts: refAmountsOf(inv, true), CustomerID: inv.CustomerID,
		PayerWalletAddress: inv.PayerWalletAddress, PayerWalletNetwork: inv.PayerWalletNetwork,
		CommerceOrderID: inv.CommerceOrderID, Environment: inv.Environment,
		ExpiresAt: kassa.FormatOptTime(&inv.ExpiresAt), CreatedAt: kassa.FormatOptTime(&inv.CreatedAt),
		PaidAt: kassa.FormatOptTime(inv.PaidAt), LastPaymentAt: kassa.FormatOptTime(inv.LastPaymentAt), CanceledAt: kassa.FormatOptTime(inv.CanceledAt),
		Description: inv.Description, CustomerEmail: inv.CustomerEmail,
		InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter,
		PaymentReturnURL: inv.PaymentReturnURL, PaymentReturnURLEnabled: inv.PaymentReturnURLEnabled,
		ReceiverOverrideEnabled: inv.ReceiverOverrideEnabled, ReceiverOverrideAddress: inv.ReceiverOverrideAddress,
		Questions: qs, FormResponses: inv.FormResponses, Metadata: meta,
	}
}

// refInvoice is the old Invoice.MarshalJSON.
func refInvoice(inv *kassa.Invoice) ([]byte, error) { return kassa.MarshalJSON(refCanonical(inv)) }

// refExpanded is the old Expanded.MarshalJSON.
func refExpanded(e Expanded) ([]byte, error) {
	c := refCanonical(e.Invoice)
	if e.Expand.LatestPayment {
		c.LatestPayment = json.RawMessage("null")
		if len(e.Receipts) > 0 {
			b, err := kassa.MarshalJSON(e.Receipts[0])
			if err != nil {
				return nil, err
			}
			c.LatestPayment = b
		}
	}
	if e.Expand.Payments {
		rs := e.Receipts
		if e.Expand.PaymentsLimit > 0 && len(rs) > e.Expand.PaymentsLimit {
			rs = rs[:e.Expand.PaymentsLimit]
		}
		if rs == nil {
			rs = []*kassa.Payment{}
		}
		b, err := kassa.MarshalJSON(rs)
		if err != nil {
			return nil, err
		}
		c.Payments = b
	}
	return kassa.MarshalJSON(c)
}

type refPayorJSON struct {
	Object   string              `json:"object"`
	ID       string              `json:"id"`
	Status   kassa.InvoiceStatus `json:"status"`
	Currency string              `json:"currency"`
	refAmounts
	Environment      kassa.Environment `json:"environment"`
	InvoiceTitle     string            `json:"invoice_title"`
	InvoiceFooter    string            `json:"invoice_footer"`
	Description      *string           `json:"description"`
	ExpiresAt        string            `json:"expires_at"`
	PaidAt           *string           `json:"paid_at"`
	Questions        *refQuestionsObj  `json:"questions"`
	PaymentReturnURL *string           `json:"payment_return_url"`
	LockedTokenID    *int64            `json:"locked_token_id"`
	LockedNetwork    *string           `json:"locked_network"`
}

// refPayor is the old Payor.MarshalJSON.
func refPayor(p Payor) ([]byte, error) {
	inv := p.Invoice
	v := refPayorJSON{Object: "payor_invoice", ID: inv.ID, Status: inv.Status, Currency: inv.Currency,
		refAmounts: refAmountsOf(inv, false), Environment: inv.Environment,
		InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter, Description: inv.Description,
		ExpiresAt: kassa.FormatTime(inv.ExpiresAt), PaidAt: kassa.FormatOptTime(inv.PaidAt),
		LockedTokenID: inv.LockedTokenID, LockedNetwork: p.LockedNetwork}
	if inv.Questions != nil {
		v.Questions = &refQuestionsObj{Questions: inv.Questions}
	}
	if inv.PaymentReturnURLEnabled {
		v.PaymentReturnURL = inv.PaymentReturnURL
	}
	return kassa.MarshalJSON(v)
}

// refEvent is the old Event.MarshalJSON.
func refEvent(e *kassa.Event) ([]byte, error) {
	return kassa.MarshalJSON(struct {
		ID         string `json:"id"`
		Object     string `json:"object"`
		APIVersion string `json:"api_version"`
		Type       string `json:"type"`
		Created    int64  `json:"created"`
		Data       struct {
			Object json.RawMessage `json:"object"`
		} `json:"data"`
	}{e.ID, "event", kassa.APIVersion, e.Type, e.Created.Unix(), struct {
		Object json.RawMessage `json:"object"`
	}{e.Data}})
}
