package kassa

import (
	"bytes"
	"encoding/json"
)

// invoiceJSON is the canonical invoice object (docs/api.md 2.4): snake_case, amounts
// in usd_millis with three-decimal twins, every nullable field present.
type invoiceJSON struct {
	Object      string        `json:"object"`
	ID          string        `json:"id"`
	MerchantID  int64         `json:"merchant_id"`
	Status      InvoiceStatus `json:"status"`
	InvoiceType string        `json:"invoice_type"`
	Currency    string        `json:"currency"`
	invoiceAmounts
	CustomerID              *string         `json:"customer_id"`
	PayerWalletAddress      *string         `json:"payer_wallet_address"`
	PayerWalletNetwork      *string         `json:"payer_wallet_network"`
	CommerceOrderID         *string         `json:"commerce_order_id"`
	Environment             Environment     `json:"environment"`
	ExpiresAt               *string         `json:"expires_at"`
	CreatedAt               *string         `json:"created_at"`
	PaidAt                  *string         `json:"paid_at"`
	LastPaymentAt           *string         `json:"last_payment_at"`
	CanceledAt              *string         `json:"canceled_at"`
	Description             *string         `json:"description"`
	CustomerEmail           *string         `json:"customer_email"`
	InvoiceTitle            string          `json:"invoice_title"`
	InvoiceFooter           string          `json:"invoice_footer"`
	PaymentReturnURL        *string         `json:"payment_return_url"`
	PaymentReturnURLEnabled bool            `json:"payment_return_url_enabled"`
	ReceiverOverrideEnabled bool            `json:"receiver_override_enabled"`
	ReceiverOverrideAddress *string         `json:"receiver_override_address"`
	Questions               *questionsJSON  `json:"questions"`
	FormResponses           []FormResponse  `json:"form_responses"`
	Metadata                json.RawMessage `json:"metadata"`
	LatestPayment           json.RawMessage `json:"latest_payment,omitempty"`
	Payments                json.RawMessage `json:"payments,omitempty"`
}

// invoiceAmounts are an invoice's amounts in usd_millis with their three-decimal
// twins, as both the merchant's and the payor's view show them.
type invoiceAmounts struct {
	Amount                 Millis `json:"amount"`
	AmountDecimal          string `json:"amount_decimal"`
	AmountPaid             Millis `json:"amount_paid"`
	AmountPaidDecimal      string `json:"amount_paid_decimal"`
	AmountRemaining        Millis `json:"amount_remaining"`
	AmountRemainingDecimal string `json:"amount_remaining_decimal"`
	AmountPending          Millis `json:"amount_pending"`
	AmountPendingDecimal   string `json:"amount_pending_decimal"`
	AmountUnit             string `json:"amount_unit"`
}

func (inv *Invoice) amounts() invoiceAmounts {
	rem := inv.AmountRemaining()
	return invoiceAmounts{
		Amount: inv.Amount, AmountDecimal: inv.Amount.Decimal(),
		AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(),
		AmountPending: inv.AmountPending, AmountPendingDecimal: inv.AmountPending.Decimal(),
		AmountUnit: "usd_millis",
	}
}

type questionsJSON struct {
	Questions []Question `json:"questions"`
}

func (inv *Invoice) canonical() invoiceJSON {
	meta := json.RawMessage(inv.Metadata)
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	var qs *questionsJSON
	if inv.Questions != nil {
		qs = &questionsJSON{Questions: inv.Questions}
	}
	return invoiceJSON{
		Object: "invoice", ID: inv.ID, MerchantID: inv.MerchantID, Status: inv.Status,
		InvoiceType: inv.Type, Currency: inv.Currency, invoiceAmounts: inv.amounts(), CustomerID: inv.CustomerID,
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

// MarshalJSON renders the canonical invoice object without expansions.
// It has a value receiver so that an Invoice value (not only a pointer) marshals as
// the canonical object too.
func (inv Invoice) MarshalJSON() ([]byte, error) { return MarshalJSON(inv.canonical()) }

// InvoiceExpand names the optional parts of an invoice a client asked for.
type InvoiceExpand struct {
	LatestPayment bool
	Payments      bool
	PaymentsLimit int
}

// ExpandedInvoice renders an invoice with the expansions asked for: latest_payment
// (the newest receipt, null until a payment exists) and payments (its receipts,
// newest first, at most PaymentsLimit; empty until payments exist). Receipts are
// rendered for the merchant, settlement fields included.
type ExpandedInvoice struct {
	Invoice  *Invoice
	Expand   InvoiceExpand
	Receipts []*InvoicePayment // newest first
}

// MarshalJSON renders the invoice with its expansions.
func (e ExpandedInvoice) MarshalJSON() ([]byte, error) {
	c := e.Invoice.canonical()
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

// MarshalJSON encodes v without escaping <, > and & (encoding/json's default), so
// merchant-supplied text such as metadata comes back as it was sent. Encoders that
// wrap its output must also call SetEscapeHTML(false).
func MarshalJSON(v any) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 2048)) // an invoice is about 1.5 KB
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
