package api

import (
	"context"
	"html/template"
	"net/url"
	"strings"
	"time"

	"kassa"
)

// pageView is everything the payment page shows, computed on the server so the
// page works without JavaScript; the script only refreshes parts of it.
type pageView struct {
	T         messages
	Lang      string
	Langs     []langLink
	Asset     func(name string) string
	InvoiceID string
	Session   string // the payment session, for forms and the script's API calls
	Signature string
	PageURL   string // this page, session included, for links back to it

	Title, Description, Footer string
	Amount, Paid, Remaining    string // USD, two decimals
	Pending                    bool
	State                      string // waiting, detected, partial, paid, expired, canceled
	ExpiresAt                  time.Time
	ReturnURL                  string // where to send the payor once paid; "" for none

	Questions   []questionView
	NeedAnswers bool // required questions are unanswered: the payor answers first
	Email       string
	Notice      string // the outcome of a form the payor just sent
	Error       string

	Tokens   []tokenView
	Address  *paymentAddressJSON
	Network  string // display name of the locked token's network
	QRURL    string
	Payments []paymentView
	// WalletURI is the EIP-681 link; html/template would refuse its ethereum: scheme.
	WalletURI template.URL
}

type langLink struct {
	Code, Name, URL string
	Current         bool
}

type questionView struct {
	ID, Text, Type, Answer string
	Required               bool
	InputType              string
}

type tokenView struct {
	ID                          int64
	Symbol, Name, Network, Icon string
	Available                   bool
	Reason                      string
	Selected                    bool
}

type paymentView struct {
	Status        string
	TxHash        string
	Short         string // the hash shortened for display
	Confirmations int
	Needed        int
}

// pageState names what the payor should be told about the invoice now.
func pageState(inv *kassa.Invoice) string {
	switch inv.Status {
	case kassa.StatusPaid:
		return "paid"
	case kassa.StatusExpired:
		return "expired"
	case kassa.StatusCanceled:
		return "canceled"
	case kassa.StatusUnderpaid:
		return "partial"
	}
	if inv.AmountPending > 0 {
		return "detected"
	}
	return "waiting"
}

// inputTypes maps question types to HTML input types.
var inputTypes = map[string]string{"text": "text", "email": "email", "number": "number", "phone": "tel"}

// buildPage computes the page of an invoice for a payor.
func (s *server) buildPage(ctx context.Context, inv *kassa.Invoice, token, lang string) (*pageView, error) {
	t := catalog(lang)
	sig := s.signer.Sign(token)
	v := &pageView{T: t, Lang: lang, Asset: assetURL, InvoiceID: inv.ID, Session: token, Signature: sig,
		Title: inv.InvoiceTitle, Footer: inv.InvoiceFooter, Amount: inv.Amount.Cents(), Paid: inv.AmountPaid.Cents(),
		Remaining: inv.AmountRemaining().Cents(), Pending: inv.AmountPending > 0, State: pageState(inv),
		ExpiresAt: inv.ExpiresAt}
	v.PageURL = "/pay/" + inv.ID + "?" + url.Values{"session": {token}, "signature": {sig}, "lang": {lang}}.Encode()
	for _, l := range languages {
		q := url.Values{"session": {token}, "signature": {sig}, "lang": {l.code}}
		v.Langs = append(v.Langs, langLink{Code: l.code, Name: l.name, URL: "/pay/" + inv.ID + "?" + q.Encode(), Current: l.code == lang})
	}
	if inv.Description != nil {
		v.Description = *inv.Description
	}
	if inv.CustomerEmail != nil {
		v.Email = *inv.CustomerEmail
	}
	if inv.PaymentReturnURLEnabled && inv.PaymentReturnURL != nil {
		v.ReturnURL = *inv.PaymentReturnURL
	}
	answers := map[string]string{}
	for _, r := range inv.FormResponses {
		answers[r.QuestionID] = r.Response
	}
	for _, q := range inv.Questions {
		qv := questionView{ID: q.ID, Text: q.Question, Type: q.Type, Required: q.Validation.Required,
			InputType: inputTypes[q.Type], Answer: answers[q.ID]}
		if qv.InputType == "" {
			qv.InputType = "text"
		}
		v.Questions = append(v.Questions, qv)
		if q.Validation.Required && strings.TrimSpace(answers[q.ID]) == "" {
			v.NeedAnswers = true
		}
	}
	if err := s.pageTokens(ctx, inv, v); err != nil {
		return nil, err
	}
	rs, err := s.receipts(ctx, inv)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		pv := paymentView{Status: string(r.Status), TxHash: r.TxHash, Short: r.TxHash, Confirmations: r.Confirmations}
		if len(r.TxHash) > 16 {
			pv.Short = r.TxHash[:10] + "…" + r.TxHash[len(r.TxHash)-6:]
		}
		if n, ok := s.cfg.Registry.Network(inv.Environment, r.Network); ok {
			pv.Needed = n.Confirmations
		}
		v.Payments = append(v.Payments, pv)
	}
	return v, nil
}

// pageTokens lists the tokens the payor may choose and, once one is locked and
// money is still owed, its deposit address and quote.
func (s *server) pageTokens(ctx context.Context, inv *kassa.Invoice, v *pageView) error {
	if s.cfg.Registry == nil || s.cfg.Rates == nil {
		return nil
	}
	for _, t := range s.cfg.Registry.Tokens(inv.Environment) {
		if inv.Status == kassa.StatusUnderpaid && inv.LockedTokenID != nil && t.ID != *inv.LockedTokenID {
			continue
		}
		tv := tokenView{ID: t.ID, Symbol: t.Symbol, Name: t.Name, Network: t.Network, Icon: t.IconURI, Available: true}
		if n, ok := s.cfg.Registry.Network(inv.Environment, t.Network); ok {
			tv.Network = n.DisplayName
		}
		if _, err := s.cfg.Rates.Rate(ctx, t); err != nil {
			tv.Available, tv.Reason = false, kassa.AsError(err).Message
		}
		tv.Selected = inv.LockedTokenID != nil && *inv.LockedTokenID == t.ID
		if tv.Selected {
			v.Network = tv.Network
		}
		v.Tokens = append(v.Tokens, tv)
	}
	open := inv.Status == kassa.StatusUnpaid || inv.Status == kassa.StatusUnderpaid
	if inv.LockedTokenID == nil || !open || v.NeedAnswers {
		return nil
	}
	addr, err := s.currentAddress(ctx, inv)
	if err != nil {
		return err
	}
	v.Address = &addr
	if strings.HasPrefix(addr.PaymentURI, "ethereum:") {
		v.WalletURI = template.URL(addr.PaymentURI) // built by kassa.PaymentURI from checked parts
	}
	v.QRURL = "/pay/" + inv.ID + "/qr.png?" + url.Values{"session": {v.Session}, "signature": {v.Signature}}.Encode()
	return nil
}
