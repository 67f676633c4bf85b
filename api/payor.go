package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"kassa"
	"kassa/api/httpx"
)

// payorFunc is a payor handler: it gets the invoice of a checked payment session.
type payorFunc func(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error

// payorAuth checks the payment session headers (PS): x-session-token and its
// x-signature, HMAC-SHA256 of the token under the server secret, compared in
// constant time. A bad or missing pair is 401; a session that names no invoice or
// has ended is 404.
func (s *server) payorAuth(h payorFunc) httpx.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, sig := r.Header.Get("X-Session-Token"), r.Header.Get("X-Signature")
		if token == "" || sig == "" {
			return httpx.ErrUnauthenticated("missing_session", "Send the payment session in x-session-token and x-signature.")
		}
		if !s.signer.Verify(token, sig) {
			return httpx.ErrUnauthenticated("invalid_session", "The payment session token or signature is invalid.")
		}
		if s.cfg.Payor == nil {
			return errSessionNotFound()
		}
		inv, err := s.cfg.Payor.InvoiceBySession(r.Context(), token)
		if err != nil {
			return err
		}
		return h(w, r, inv)
	}
}

func errSessionNotFound() error {
	return &kassa.Error{Kind: kassa.KindNotFound, Code: "session_not_found", Message: "No such payment session, or it has ended."}
}

// payorInvoice serves GET /api/v1/payments/invoice: the payor's view of the invoice.
func (s *server) payorInvoice(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	view := kassa.PayorInvoice{Invoice: inv}
	if inv.LockedTokenID != nil && s.cfg.Registry != nil {
		if t, ok := s.cfg.Registry.Token(inv.Environment, *inv.LockedTokenID); ok {
			view.LockedNetwork = &t.Network
		}
	}
	httpx.WriteJSON(w, http.StatusOK, view)
	return nil
}

// paymentStatus is the answer of GET /api/v1/payments/payment-status.
type paymentStatus struct {
	Status                 kassa.InvoiceStatus `json:"status"`
	AmountPaid             kassa.Millis        `json:"amount_paid"`
	AmountPaidDecimal      string              `json:"amount_paid_decimal"`
	AmountRemaining        kassa.Millis        `json:"amount_remaining"`
	AmountRemainingDecimal string              `json:"amount_remaining_decimal"`
	AmountPending          kassa.Millis        `json:"amount_pending"`
	PaidAt                 *string             `json:"paid_at"`
	Payments               []paymentSummary    `json:"payments"`
}

type paymentSummary struct {
	Status        kassa.ReceiptStatus `json:"status"`
	TxHash        string              `json:"tx_hash"`
	Network       string              `json:"network"`
	AmountToken   string              `json:"amount_token"`
	Confirmations int                 `json:"confirmations"`
	// ConfirmationsRequired is how many its network needs before it counts.
	ConfirmationsRequired int `json:"confirmations_required"`
}

// paymentStatusHandler serves GET /api/v1/payments/payment-status for polling pages.
func (s *server) paymentStatusHandler(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	out, err := s.paymentStatusOf(r, inv)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// paymentStatusOf summarises an invoice's payments for polling pages.
func (s *server) paymentStatusOf(r *http.Request, inv *kassa.Invoice) (paymentStatus, error) {
	rs, err := s.receipts(r.Context(), inv)
	if err != nil {
		return paymentStatus{}, err
	}
	rem := inv.AmountRemaining()
	out := paymentStatus{Status: inv.Status, AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(), AmountPending: inv.AmountPending,
		Payments: make([]paymentSummary, 0, len(rs))}
	if inv.PaidAt != nil {
		t := kassa.FormatTime(*inv.PaidAt)
		out.PaidAt = &t
	}
	for _, p := range rs {
		out.Payments = append(out.Payments, paymentSummary{Status: p.Status, TxHash: p.TxHash, Network: p.Network,
			AmountToken: p.AmountUnits.String(), Confirmations: p.Confirmations,
			ConfirmationsRequired: s.confirmationsNeeded(inv.Environment, p.Network)})
	}
	return out, nil
}

// confirmationsNeeded is how many confirmations a payment on network needs.
func (s *server) confirmationsNeeded(env kassa.Environment, network string) int {
	if s.cfg.Registry != nil {
		if n, ok := s.cfg.Registry.Network(env, network); ok {
			return n.Confirmations
		}
	}
	return 0
}

// receipts loads an invoice's receipts, newest first (at most 100).
func (s *server) receipts(ctx context.Context, inv *kassa.Invoice) ([]*kassa.Receipt, error) {
	if s.cfg.Payments == nil {
		return nil, nil
	}
	return s.cfg.Payments.Receipts(ctx, inv.MerchantID, inv.ID, 100)
}

// getCustomerEmail serves GET /api/v1/payments/customer-email: {email}, null when unset.
func (s *server) getCustomerEmail(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	httpx.WriteJSON(w, http.StatusOK, map[string]*string{"email": inv.CustomerEmail})
	return nil
}

// setCustomerEmail serves POST /api/v1/payments/customer-email {email}.
func (s *server) setCustomerEmail(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	body, err := httpx.ReadBody(r)
	if err != nil {
		return err
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return err
	}
	var email *string
	for _, f := range fields {
		if f.Key != "email" {
			return httpx.ErrUnknownParam(f.Key)
		}
		v, err := httpx.ReqString(f)
		if err != nil {
			return err
		}
		email = &v
	}
	if email == nil {
		return httpx.ErrInvalid("email", "missing_param", "email is required.")
	}
	if _, err := s.cfg.Payor.SetCustomerEmail(r.Context(), inv.MerchantID, inv.ID, *email); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "email": *email,
		"message": "The receipt will be sent to this address."})
	return nil
}

// questions serves GET /api/v1/payments/questions: the invoice's question schema
// (an empty list when it asks nothing) and the answers given so far.
func (s *server) questions(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	qs, rs := inv.Questions, inv.FormResponses
	if qs == nil {
		qs = []kassa.Question{}
	}
	if rs == nil {
		rs = []kassa.FormResponse{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"questions": qs, "responses": rs})
	return nil
}

// submitForm serves POST /api/v1/payments/submit-form {responses: [{question_id, response}]}.
func (s *server) submitForm(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	body, err := httpx.ReadBody(r)
	if err != nil {
		return err
	}
	rs, err := decodeResponses(body)
	if err != nil {
		return err
	}
	if _, err := s.cfg.Payor.SubmitForm(r.Context(), inv.MerchantID, inv.ID, rs); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}

// decodeResponses reads a submit-form body strictly.
func decodeResponses(body []byte) ([]kassa.FormResponse, error) {
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return nil, err
	}
	var list *httpx.Field
	for i := range fields {
		if fields[i].Key != "responses" {
			return nil, httpx.ErrUnknownParam(fields[i].Key)
		}
		list = &fields[i]
	}
	if list == nil || list.Null() {
		return nil, httpx.ErrMissing("responses")
	}
	var raw []json.RawMessage
	if len(list.Raw) == 0 || list.Raw[0] != '[' || json.Unmarshal(list.Raw, &raw) != nil {
		return nil, httpx.ErrInvalidType("responses", "an array of {question_id, response}")
	}
	out := make([]kassa.FormResponse, 0, len(raw))
	for i, item := range raw {
		path := "responses[" + strconv.Itoa(i) + "]"
		fs, err := httpx.ParseObject(item, path)
		if err != nil {
			return nil, err
		}
		var resp kassa.FormResponse
		seen := 0
		for _, f := range fs {
			switch f.Key {
			case "question_id":
				resp.QuestionID, err = httpx.ReqString(f)
			case "response":
				resp.Response, err = httpx.ReqString(f)
			default:
				err = httpx.ErrUnknownParam(f.Path)
			}
			if err != nil {
				return nil, err
			}
			seen++
		}
		if seen != 2 {
			return nil, httpx.ErrInvalid(path, "missing_param", path+" needs question_id and response.")
		}
		out = append(out, resp)
	}
	return out, nil
}
