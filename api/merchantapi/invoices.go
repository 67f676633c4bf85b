package merchantapi

import (
	"context"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/payment"
)

// invoiceCreated is the answer to an invoice creation (docs/api.md 2.3), with the
// full canonical invoice added for convenience.
type invoiceCreated struct {
	InvoiceID             string                 `json:"invoice_id"`
	PaymentURL            string                 `json:"payment_url"`
	ExpiresAt             string                 `json:"expires_at"`
	SessionToken          string                 `json:"session_token"`
	Signature             string                 `json:"signature"`
	PaymentSessionHeaders payment.SessionHeaders `json:"payment_session_headers"`
	Invoice               *kassa.Invoice         `json:"invoice"`
}

// CreateInvoice serves POST /api/v1/invoices (behind the idempotency layer).
func (a *API) CreateInvoice(w http.ResponseWriter, r *http.Request, claim *httpx.Claim) error {
	c, err := httpx.DecodeBody(r, decodeInvoiceCreate)
	if err != nil {
		return err
	}
	// The store saves this response with the invoice.
	save := httpx.SaveResponse(claim, func(ci kassa.CreatedInvoice) (int, []byte, error) {
		body, err := marshalInvoiceCreated(a.invoiceCreated(ci.Invoice, ci.SessionToken))
		return http.StatusCreated, body, err
	})
	inv, token, err := a.invoices.CreateInvoice(r.Context(), httpx.Principal(r.Context()), c, save)
	if err != nil {
		return err
	}
	if httpx.WriteSaved(w, claim, save) {
		return nil
	}
	body, err := marshalInvoiceCreated(a.invoiceCreated(inv, token))
	if err != nil {
		return err
	}
	httpx.WriteRaw(w, http.StatusCreated, body)
	return nil
}

// invoiceCreated renders the create response of an invoice and its session token.
func (a *API) invoiceCreated(inv *kassa.Invoice, token string) invoiceCreated {
	sig := a.signer.Sign(token)
	return invoiceCreated{
		InvoiceID:             inv.ID,
		PaymentURL:            a.signer.PaymentURL(a.publicURL, inv.ID, token),
		ExpiresAt:             kassa.FormatTime(inv.ExpiresAt),
		SessionToken:          token,
		Signature:             sig,
		PaymentSessionHeaders: payment.SessionHeaders{SessionToken: token, Signature: sig},
		Invoice:               inv,
	}
}

// ListInvoices serves GET /api/v1/invoices.
func (a *API) ListInvoices(w http.ResponseWriter, r *http.Request) error {
	return a.writeInvoiceList(w, r, nil)
}

// writeInvoiceList answers a list request; customerID, when set, overrides the
// customer_id query parameter.
func (a *API) writeInvoiceList(w http.ResponseWriter, r *http.Request, customerID *string) error {
	f, e, err := parseInvoiceList(r.URL.Query(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	if customerID != nil {
		f.CustomerID = customerID
	}
	invs, more, err := a.invoices.Invoices(r.Context(), f)
	if err != nil {
		return err
	}
	return a.writeList(r.Context(), w, invs, e, more, r.URL.Path)
}

// GetInvoice serves GET /api/v1/invoices/{invoiceId}.
func (a *API) GetInvoice(w http.ResponseWriter, r *http.Request) error {
	e, err := parseExpand(r.URL.Query(), false)
	if err != nil {
		return err
	}
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	merchantID := httpx.Principal(r.Context()).MerchantID
	if limit, ok := receiptsWanted(e); ok && a.payments != nil {
		// The invoice read with its receipts never lags them.
		inv, rs, err := a.payments.InvoiceWithPayments(r.Context(), merchantID, id, limit)
		if err != nil {
			return err
		}
		writeInvoice(w, http.StatusOK, invoicejson.Expanded{Invoice: inv, Expand: e, Receipts: rs})
		return nil
	}
	inv, err := a.invoices.Invoice(r.Context(), merchantID, id)
	if err != nil {
		return err
	}
	x, err := a.expand(r.Context(), inv, e)
	if err != nil {
		return err
	}
	writeInvoice(w, http.StatusOK, x)
	return nil
}

// expand loads what an invoice's expansions need: its receipts, when latest_payment
// or payments was asked for.
func (a *API) expand(ctx context.Context, inv *kassa.Invoice, e invoicejson.Expand) (invoicejson.Expanded, error) {
	x := invoicejson.Expanded{Invoice: inv, Expand: e}
	limit, ok := receiptsWanted(e)
	if !ok || a.payments == nil {
		return x, nil
	}
	rs, err := a.payments.InvoicePayments(ctx, inv.MerchantID, inv.ID, limit)
	x.Receipts = rs
	return x, err
}

// receiptsWanted says how many receipts e's expansions show, and whether any.
func receiptsWanted(e invoicejson.Expand) (int, bool) {
	switch {
	case e.Payments:
		return max(e.PaymentsLimit, 1), true
	case e.LatestPayment:
		return 1, true
	}
	return 0, false
}

// InvoiceSubresource serves GET /api/v1/invoices/customer/{customerId} and
// GET /api/v1/invoices/{invoiceId}/status.
func (a *API) InvoiceSubresource(w http.ResponseWriter, r *http.Request) error {
	first, rest := r.PathValue("first"), r.PathValue("rest")
	switch {
	case first == "customer" && rest != "":
		return a.writeInvoiceList(w, r, &rest)
	case rest == "status":
		return a.invoiceStatus(w, r)
	case rest == "refunds":
		return a.invoiceRefunds(w, r)
	}
	return &kassa.Error{Kind: kassa.KindNotFound, Code: "route_not_found",
		Message: "Unrecognized request URL (" + r.Method + " " + r.URL.Path + ")."}
}

// invoiceStatusJSON is the answer of GET /api/v1/invoices/{invoiceId}/status.
type invoiceStatusJSON struct {
	Object                 string              `json:"object"`
	ID                     string              `json:"id"`
	Status                 kassa.InvoiceStatus `json:"status"`
	AmountPaid             kassa.Millis        `json:"amount_paid"`
	AmountPaidDecimal      string              `json:"amount_paid_decimal"`
	AmountRemaining        kassa.Millis        `json:"amount_remaining"`
	AmountRemainingDecimal string              `json:"amount_remaining_decimal"`
	PaidAt                 *string             `json:"paid_at"`
	ExpiresAt              string              `json:"expires_at"`
}

func (a *API) invoiceStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "first")
	if err != nil {
		return err
	}
	inv, err := a.invoices.Invoice(r.Context(), httpx.Principal(r.Context()).MerchantID, id)
	if err != nil {
		return err
	}
	rem := inv.AmountRemaining()
	httpx.WriteJSON(w, http.StatusOK, invoiceStatusJSON{
		Object: "invoice_status", ID: inv.ID, Status: inv.Status,
		AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(),
		PaidAt: kassa.FormatOptTime(inv.PaidAt), ExpiresAt: kassa.FormatTime(inv.ExpiresAt),
	})
	return nil
}

// CancelInvoice serves POST /api/v1/invoices/{invoiceId}/cancel.
func (a *API) CancelInvoice(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	inv, err := a.invoices.CancelInvoice(r.Context(), httpx.Principal(r.Context()), id)
	if err != nil {
		return err
	}
	writeInvoice(w, http.StatusOK, invoicejson.Expanded{Invoice: inv})
	return nil
}
