package kassa

import "encoding/json"

// The reflection-based encoders the hand-written ones replaced, kept as the
// reference they must match byte for byte (invoiceencode_test.go).

type refInvoiceJSON struct {
	Object      string        `json:"object"`
	ID          string        `json:"id"`
	MerchantID  int64         `json:"merchant_id"`
	Status      InvoiceStatus `json:"status"`
	InvoiceType string        `json:"invoice_type"`
	Currency    string        `json:"currency"`
	refAmounts
	CustomerID              *string          `json:"customer_id"`
	PayerWalletAddress      *string          `json:"payer_wallet_address"`
	PayerWalletNetwork      *string          `json:"payer_wallet_network"`
	CommerceOrderID         *string          `json:"commerce_order_id"`
	Environment             Environment      `json:"environment"`
	ExpiresAt               *string          `json:"expires_at"`
	CreatedAt               *string          `json:"created_at"`
	PaidAt                  *string          `json:"paid_at"`
	LastPaymentAt           *string          `json:"last_payment_at"`
	CanceledAt              *string          `json:"canceled_at"`
	Description             *string          `json:"description"`
	CustomerEmail           *string          `json:"customer_email"`
	InvoiceTitle            string           `json:"invoice_title"`
	InvoiceFooter           string           `json:"invoice_footer"`
	PaymentReturnURL        *string          `json:"payment_return_url"`
	PaymentReturnURLEnabled bool             `json:"payment_return_url_enabled"`
	ReceiverOverrideEnabled bool             `json:"receiver_override_enabled"`
	ReceiverOverrideAddress *string          `json:"receiver_override_address"`
	Questions               *refQuestionsObj `json:"questions"`
	FormResponses           []FormResponse   `json:"form_responses"`
	Metadata                json.RawMessage  `json:"metadata"`
	LatestPayment           json.RawMessage  `json:"latest_payment,omitempty"`
	Payments                json.RawMessage  `json:"payments,omitempty"`
}

type refAmounts struct {
	Amount                 Millis  `json:"amount"`
	AmountDecimal          string  `json:"amount_decimal"`
	AmountPaid             Millis  `json:"amount_paid"`
	AmountPaidDecimal      string  `json:"amount_paid_decimal"`
	AmountRemaining        Millis  `json:"amount_remaining"`
	AmountRemainingDecimal string  `json:"amount_remaining_decimal"`
	AmountPending          Millis  `json:"amount_pending"`
	AmountPendingDecimal   string  `json:"amount_pending_decimal"`
	AmountRefunded         *Millis `json:"amount_refunded,omitempty"`
	AmountRefundedDecimal  *string `json:"amount_refunded_decimal,omitempty"`
	AmountUnit             string  `json:"amount_unit"`
}

type refQuestionsObj struct {
	Questions []Question `json:"questions"`
}

func refAmountsOf(inv *Invoice, refunded bool) refAmounts {
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

func refCanonical(inv *Invoice) refInvoiceJSON {
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
		ExpiresAt: FormatOptTime(&inv.ExpiresAt), CreatedAt: FormatOptTime(&inv.CreatedAt),
		PaidAt: FormatOptTime(inv.PaidAt), LastPaymentAt: FormatOptTime(inv.LastPaymentAt), CanceledAt: FormatOptTime(inv.CanceledAt),
		Description: inv.Description, CustomerEmail: inv.CustomerEmail,
		InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter,
		PaymentReturnURL: inv.PaymentReturnURL, PaymentReturnURLEnabled: inv.PaymentReturnURLEnabled,
		ReceiverOverrideEnabled: inv.ReceiverOverrideEnabled, ReceiverOverrideAddress: inv.ReceiverOverrideAddress,
		Questions: qs, FormResponses: inv.FormResponses, Metadata: meta,
	}
}

// refInvoice is the old Invoice.MarshalJSON.
func refInvoice(inv *Invoice) ([]byte, error) { return MarshalJSON(refCanonical(inv)) }

// refExpanded is the old ExpandedInvoice.MarshalJSON.
func refExpanded(e ExpandedInvoice) ([]byte, error) {
	c := refCanonical(e.Invoice)
	if e.Expand.LatestPayment {
		c.LatestPayment = json.RawMessage("null")
		if len(e.Receipts) > 0 {
			b, err := MarshalJSON(e.Receipts[0])
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
			rs = []*InvoicePayment{}
		}
		b, err := MarshalJSON(rs)
		if err != nil {
			return nil, err
		}
		c.Payments = b
	}
	return MarshalJSON(c)
}

type refPayorJSON struct {
	Object   string        `json:"object"`
	ID       string        `json:"id"`
	Status   InvoiceStatus `json:"status"`
	Currency string        `json:"currency"`
	refAmounts
	Environment      Environment      `json:"environment"`
	InvoiceTitle     string           `json:"invoice_title"`
	InvoiceFooter    string           `json:"invoice_footer"`
	Description      *string          `json:"description"`
	ExpiresAt        string           `json:"expires_at"`
	PaidAt           *string          `json:"paid_at"`
	Questions        *refQuestionsObj `json:"questions"`
	PaymentReturnURL *string          `json:"payment_return_url"`
	LockedTokenID    *int64           `json:"locked_token_id"`
	LockedNetwork    *string          `json:"locked_network"`
}

// refPayor is the old PayorInvoice.MarshalJSON.
func refPayor(p PayorInvoice) ([]byte, error) {
	inv := p.Invoice
	v := refPayorJSON{Object: "payor_invoice", ID: inv.ID, Status: inv.Status, Currency: inv.Currency,
		refAmounts: refAmountsOf(inv, false), Environment: inv.Environment,
		InvoiceTitle: inv.InvoiceTitle, InvoiceFooter: inv.InvoiceFooter, Description: inv.Description,
		ExpiresAt: FormatTime(inv.ExpiresAt), PaidAt: FormatOptTime(inv.PaidAt),
		LockedTokenID: inv.LockedTokenID, LockedNetwork: p.LockedNetwork}
	if inv.Questions != nil {
		v.Questions = &refQuestionsObj{Questions: inv.Questions}
	}
	if inv.PaymentReturnURLEnabled {
		v.PaymentReturnURL = inv.PaymentReturnURL
	}
	return MarshalJSON(v)
}

// refEvent is the old Event.MarshalJSON.
func refEvent(e *Event) ([]byte, error) {
	return MarshalJSON(struct {
		ID         string `json:"id"`
		Object     string `json:"object"`
		APIVersion string `json:"api_version"`
		Type       string `json:"type"`
		Created    int64  `json:"created"`
		Data       struct {
			Object json.RawMessage `json:"object"`
		} `json:"data"`
	}{e.ID, "event", APIVersion, e.Type, e.Created.Unix(), struct {
		Object json.RawMessage `json:"object"`
	}{e.Data}})
}
