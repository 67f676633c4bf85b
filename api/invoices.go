package api

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"kassa"
	"kassa/api/httpx"
)

// sessionHeaders is the payment_session_headers convenience mapping.
type sessionHeaders struct {
	SessionToken string `json:"x-session-token"`
	Signature    string `json:"x-signature"`
}

// invoiceCreated is the answer to an invoice creation (interface 2.3), with the
// full canonical invoice added for convenience.
type invoiceCreated struct {
	InvoiceID             string         `json:"invoice_id"`
	PaymentURL            string         `json:"payment_url"`
	ExpiresAt             string         `json:"expires_at"`
	SessionToken          string         `json:"session_token"`
	Signature             string         `json:"signature"`
	PaymentSessionHeaders sessionHeaders `json:"payment_session_headers"`
	Invoice               *kassa.Invoice `json:"invoice"`
}

// createInvoice serves POST /api/v1/invoices (behind the idempotency layer).
func (s *server) createInvoice(w http.ResponseWriter, r *http.Request) error {
	body, err := httpx.ReadBody(r)
	if err != nil {
		return err
	}
	c, err := decodeInvoiceCreate(body)
	if err != nil {
		return err
	}
	// Behind the idempotency layer the store saves this response with the invoice.
	iw := kassa.IdempotentWriteFrom(r.Context())
	if iw != nil {
		iw.Respond = func(result any) (int, []byte, error) {
			ci := result.(kassa.CreatedInvoice)
			body, err := httpx.Marshal(s.invoiceCreated(ci.Invoice, ci.SessionToken))
			return http.StatusCreated, body, err
		}
	}
	inv, token, err := s.cfg.Invoices.CreateInvoice(r.Context(), httpx.Principal(r.Context()), c)
	if err != nil {
		return err
	}
	if iw != nil {
		if status, body, ok := iw.Saved(); ok {
			httpx.WriteRaw(w, status, body) // exactly the bytes a replay will send
			return nil
		}
	}
	httpx.WriteJSON(w, http.StatusCreated, s.invoiceCreated(inv, token))
	return nil
}

// invoiceCreated renders the create response of an invoice and its session token.
func (s *server) invoiceCreated(inv *kassa.Invoice, token string) invoiceCreated {
	sig := s.signer.Sign(token)
	return invoiceCreated{
		InvoiceID:             inv.ID,
		PaymentURL:            s.signer.PaymentURL(s.cfg.PublicURL, inv.ID, token),
		ExpiresAt:             kassa.FormatTime(inv.ExpiresAt),
		SessionToken:          token,
		Signature:             sig,
		PaymentSessionHeaders: sessionHeaders{SessionToken: token, Signature: sig},
		Invoice:               inv,
	}
}

// encodeInvoiceList renders the list envelope (interface 2.5) of invoices.
// It is assembled by hand from each invoice's own encoding: passing the items
// through encoding/json again would re-validate and re-compact every byte, which
// cost a sixth of a list request's CPU.
func (s *server) encodeInvoiceList(ctx context.Context, invs []*kassa.Invoice, e kassa.InvoiceExpand, more bool, url string) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 64+2048*len(invs)))
	buf.WriteString(`{"object":"list","data":[`)
	for i, inv := range invs {
		x, err := s.expand(ctx, inv, e)
		if err != nil {
			return nil, err
		}
		b, err := x.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(b)
	}
	tail, err := httpx.Marshal(struct {
		HasMore bool   `json:"has_more"`
		URL     string `json:"url"`
	}{more, url})
	if err != nil {
		return nil, err
	}
	buf.WriteString("],")
	buf.Write(bytes.TrimPrefix(tail, []byte("{")))
	return buf.Bytes(), nil
}

// listInvoices serves GET /api/v1/invoices.
func (s *server) listInvoices(w http.ResponseWriter, r *http.Request) error {
	return s.writeInvoiceList(w, r, nil)
}

// writeInvoiceList answers a list request; customerID, when set, overrides the
// customer_id query parameter.
func (s *server) writeInvoiceList(w http.ResponseWriter, r *http.Request, customerID *string) error {
	f, e, err := parseInvoiceList(r.URL.Query(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	if customerID != nil {
		f.CustomerID = customerID
	}
	invs, more, err := s.cfg.Invoices.Invoices(r.Context(), f)
	if err != nil {
		return err
	}
	body, err := s.encodeInvoiceList(r.Context(), invs, e, more, r.URL.Path)
	if err != nil {
		return err
	}
	httpx.WriteRaw(w, http.StatusOK, body)
	return nil
}

// invoiceID reads the invoiceId path value. The interface types it as a UUID, so
// anything else is an invalid parameter (400); a well-formed id that names no
// invoice of this merchant is 404.
func invoiceID(r *http.Request, name string) (string, error) {
	id := strings.ToLower(r.PathValue(name))
	if !kassa.ValidUUID(id) {
		return "", httpx.ErrInvalid("invoiceId", "invalid_invoice_id", "The invoice id must be a UUID.")
	}
	return id, nil
}

// getInvoice serves GET /api/v1/invoices/{invoiceId}.
func (s *server) getInvoice(w http.ResponseWriter, r *http.Request) error {
	e, err := parseExpand(r.URL.Query(), false)
	if err != nil {
		return err
	}
	id, err := invoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	inv, err := s.cfg.Invoices.Invoice(r.Context(), httpx.Principal(r.Context()).MerchantID, id)
	if err != nil {
		return err
	}
	x, err := s.expand(r.Context(), inv, e)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, x)
	return nil
}

// expand loads what an invoice's expansions need: its receipts, when latest_payment
// or payments was asked for.
func (s *server) expand(ctx context.Context, inv *kassa.Invoice, e kassa.InvoiceExpand) (kassa.ExpandedInvoice, error) {
	x := kassa.ExpandedInvoice{Invoice: inv, Expand: e}
	if (!e.LatestPayment && !e.Payments) || s.cfg.Payments == nil {
		return x, nil
	}
	limit := 1
	if e.Payments {
		limit = max(e.PaymentsLimit, 1)
	}
	rs, err := s.cfg.Payments.Receipts(ctx, inv.MerchantID, inv.ID, limit)
	x.Receipts = rs
	return x, err
}

// invoiceSubresource serves GET /api/v1/invoices/customer/{customerId} and
// GET /api/v1/invoices/{invoiceId}/status.
func (s *server) invoiceSubresource(w http.ResponseWriter, r *http.Request) error {
	first, rest := r.PathValue("first"), r.PathValue("rest")
	switch {
	case first == "customer" && rest != "":
		return s.writeInvoiceList(w, r, &rest)
	case rest == "status":
		return s.invoiceStatus(w, r)
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

func (s *server) invoiceStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceID(r, "first")
	if err != nil {
		return err
	}
	inv, err := s.cfg.Invoices.Invoice(r.Context(), httpx.Principal(r.Context()).MerchantID, id)
	if err != nil {
		return err
	}
	rem := inv.AmountRemaining()
	httpx.WriteJSON(w, http.StatusOK, invoiceStatusJSON{
		Object: "invoice_status", ID: inv.ID, Status: inv.Status,
		AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(),
		PaidAt: optTime(inv.PaidAt), ExpiresAt: kassa.FormatTime(inv.ExpiresAt),
	})
	return nil
}

// cancelInvoice serves POST /api/v1/invoices/{invoiceId}/cancel.
func (s *server) cancelInvoice(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	inv, err := s.cfg.Invoices.CancelInvoice(r.Context(), httpx.Principal(r.Context()), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, inv)
	return nil
}
