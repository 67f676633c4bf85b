package merchantapi

import (
	"math/big"
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/refund"
)

// CreateRefund serves POST /api/v1/invoices/{invoiceId}/refunds: 201 with the
// refund (Idempotency-Key required and replayed).
func (a *API) CreateRefund(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	c, err := httpx.DecodeBody(r, decodeRefund)
	if err != nil {
		return err
	}
	if a.refunds == nil {
		return kassa.NotFound("invoice")
	}
	ref, err := a.refunds.Create(r.Context(), httpx.Principal(r.Context()), id, c)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, ref)
	return nil
}

// decodeRefund reads a refund request body (an empty one refunds everything).
func decodeRefund(body []byte) (refund.Create, error) {
	var c refund.Create
	if len(body) == 0 {
		return c, nil
	}
	err := httpx.DecodeFields(body, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "amount_usd":
			if f.Null() {
				return true, nil
			}
			if !httpx.IsNumber(f.Raw) {
				return true, httpx.ErrInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			m, err := kassa.ParseUSD(string(f.Raw), "amount_usd")
			c.AmountUSD = &m
			return true, err
		case "amount_token_units":
			s, err := httpx.OptString(f)
			if err != nil || s == nil {
				return true, err
			}
			u, ok := new(big.Int).SetString(*s, 10)
			if !ok || !kassa.AllDigits(*s) {
				return true, httpx.ErrInvalid("amount_token_units", "invalid_amount", "amount_token_units must be a decimal string of base units, such as \"2500000\".")
			}
			c.AmountUnits = u
			return true, nil
		}
		dst := map[string]*string{"payment_id": &c.PaymentID, "address": &c.Address, "reason": &c.Reason}[f.Key]
		var rate string
		if f.Key == "rate" {
			dst = &rate
		}
		if dst == nil {
			return false, nil
		}
		s, err := httpx.OptString(f)
		if s != nil {
			*dst = *s
		}
		if f.Key == "rate" {
			c.Rate = kassa.RefundRate(rate)
		}
		return true, err
	})
	c.PaymentID = strings.ToLower(c.PaymentID)
	return c, err
}

// GetRefund serves GET /api/v1/refunds/{refundId}.
func (a *API) GetRefund(w http.ResponseWriter, r *http.Request) error {
	if a.refunds == nil {
		return kassa.NotFound("refund")
	}
	ref, err := a.refunds.Get(r.Context(), httpx.Principal(r.Context()), r.PathValue("refundId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, ref)
	return nil
}

// invoiceRefunds serves GET /api/v1/invoices/{invoiceId}/refunds: a bare array,
// newest first.
func (a *API) invoiceRefunds(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "first")
	if err != nil {
		return err
	}
	if a.refunds == nil {
		return kassa.NotFound("invoice")
	}
	rs, err := a.refunds.List(r.Context(), httpx.Principal(r.Context()), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, rs)
	return nil
}

// CancelRefund serves POST /api/v1/refunds/{refundId}/cancel.
func (a *API) CancelRefund(w http.ResponseWriter, r *http.Request) error {
	if a.refunds == nil {
		return kassa.NotFound("refund")
	}
	ref, err := a.refunds.Cancel(r.Context(), httpx.Principal(r.Context()), r.PathValue("refundId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, ref)
	return nil
}

// ClaimRefund serves POST /api/v1/refunds/{refundId}/claim {token, address}: no
// API key, the claim token is the credential; it answers the payor's view.
func (a *API) ClaimRefund(w http.ResponseWriter, r *http.Request) error {
	if err := a.core.LimitPayorAddr(w, r); err != nil { // the payor's bucket: guessing tokens is limited too
		return err
	}
	var token, address string
	got := map[string]bool{}
	err := httpx.DecodeRequest(r, httpx.BodyRequired, func(f httpx.Field) (bool, error) {
		var dst *string
		switch f.Key {
		case "token":
			dst = &token
		case "address":
			dst = &address
		default:
			return false, nil
		}
		s, err := httpx.ReqString(f)
		*dst, got[f.Key] = s, true
		return true, err
	})
	if err != nil {
		return err
	}
	if err := httpx.RequireFields(got, "token", "address"); err != nil {
		return err
	}
	if a.refunds == nil {
		return kassa.NotFound("refund")
	}
	ref, err := a.refunds.Claim(r.Context(), r.PathValue("refundId"), token, address)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, ref.PayorView())
	return nil
}
