package paypage

import (
	"context"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
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
	Errors    string // the page's words for API error codes, JSON, for the script
	Receipts  string // the page's words for payments, JSON, for the script

	Title, Description, Footer string
	Amount, Paid, Remaining    string // as kassa.Millis.USD shows them: "$12.505"
	RemainingMillis            int64
	State                      string // waiting, detected, partial, paid, expired, canceled
	Open                       bool   // waiting, detected or partial: something may still be paid
	StatusText                 string
	ExpiresAt                  time.Time
	TimeLeft                   string // "11 h 59 min": what the script's countdown starts from
	Now                        string // the server's now (RFC 3339, ms): the script counts down by this clock
	ReturnURL                  string // where to send the payor once paid; "" for none
	// Watched: the page was reloaded by itself (no JavaScript) while open, so once
	// paid it returns to the shop on its own as the script does.
	Watched bool
	PaidAt  string // "2026-11-23 14:05 UTC" once paid

	Questions     []questionView
	NeedAnswers   bool // required questions are unanswered: the payor answers first
	ShowQuestions bool // the questions come first: required ones unanswered, or none sent yet
	AllOptional   bool // no question is required: the payor may skip them
	Email         string
	Notice        string // the outcome of a form the payor just sent
	Error         string

	Tokens     []tokenView
	Address    *payment.Quote
	Symbol     string // the locked token's symbol
	Network    string // display name of the locked token's network
	QRURL      string // the QR of the quote shown
	QRBase     string // the QR's URL without the quote, for the script
	QuoteLeft  string // "15 min"
	QuoteUntil string // "14:05"
	Payments   []paymentView
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
	Note                        string // a devnet token on an unwatched network: only simulations count
	Selected                    bool
}

type paymentView struct {
	Status        string
	Text          string // what the payor is told about it (messages.ReceiptText)
	TxHash        string
	Short         string // the hash shortened for display
	Confirmations int
	Needed        int
}

// Progress is "1/3 confirmations", on the server as in the script.
func (p paymentView) Progress(t messages) string {
	return strconv.Itoa(p.Confirmations) + "/" + strconv.Itoa(p.Needed) + " " + t.Confirmations
}

// pageState names what the payor should be told about the invoice now. Money
// seen but not confirmed comes first while the invoice is open: nothing more is
// asked of the payor until it counts.
func pageState(inv *kassa.Invoice) string {
	switch inv.Status {
	case kassa.StatusPaid:
		return "paid"
	case kassa.StatusExpired:
		return "expired"
	case kassa.StatusCanceled:
		return "canceled"
	}
	if inv.AmountPending > 0 {
		return "detected"
	}
	if inv.Status == kassa.StatusUnderpaid {
		return "partial"
	}
	return "waiting"
}

// inputTypes maps question types to HTML input types.
var inputTypes = map[string]string{"text": "text", "email": "email", "number": "number", "phone": "tel"}

// shortTime is how the page writes a moment: "2026-11-23 14:05 UTC".
const shortTime = "2006-01-02 15:04 UTC"

// buildPage computes the page of an invoice for a payor.
func (p *Page) buildPage(ctx context.Context, inv *kassa.Invoice, token, lang string) (*pageView, error) {
	t := catalog(lang)
	sig := p.cfg.Signer.Sign(token)
	now := p.cfg.Now()
	v := &pageView{T: t, Lang: lang, Asset: assetURL, InvoiceID: inv.ID, Session: token, Signature: sig, Errors: t.errorsJSON(), Receipts: t.receiptsJSON(),
		Title: inv.InvoiceTitle, Footer: inv.InvoiceFooter, Amount: inv.Amount.USD(), Paid: inv.AmountPaid.USD(),
		Remaining: inv.AmountRemaining().USD(), RemainingMillis: int64(inv.AmountRemaining()), State: pageState(inv),
		ExpiresAt: inv.ExpiresAt, TimeLeft: t.Left(inv.ExpiresAt.Sub(now)), Now: kassa.FormatTime(now)}
	v.Open = v.State == "waiting" || v.State == "detected" || v.State == "partial"
	v.StatusText = t.StatusText(v.State)
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
	if inv.PaidAt != nil {
		v.PaidAt = inv.PaidAt.UTC().Format(shortTime)
	}
	answers := map[string]string{}
	for _, r := range inv.FormResponses {
		answers[r.QuestionID] = r.Response
	}
	v.AllOptional = true
	for _, q := range inv.Questions {
		qv := questionView{ID: q.ID, Text: q.Question, Type: q.Type, Required: q.Validation.Required,
			InputType: inputTypes[q.Type], Answer: answers[q.ID]}
		if qv.InputType == "" {
			qv.InputType = "text"
		}
		v.Questions = append(v.Questions, qv)
		if q.Validation.Required {
			v.AllOptional = false
		}
	}
	v.NeedAnswers = inv.RequiredUnanswered()
	// Optional questions are asked once, before a token is chosen; answering or
	// skipping them (an empty submission) lets the payor go on.
	v.ShowQuestions = v.NeedAnswers || (len(inv.Questions) > 0 && inv.FormResponses == nil && inv.LockedTokenID == nil)
	if err := p.pageTokens(ctx, inv, v); err != nil {
		return nil, err
	}
	rs, err := p.cfg.Tracker.Receipts(ctx, inv)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		pv := paymentView{Status: string(r.Status), Text: t.ReceiptText(r.Status, r.AttentionReason, r.Resolution),
			TxHash: r.TxHash, Short: r.TxHash, Confirmations: r.Confirmations,
			Needed: p.cfg.Tracker.ConfirmationsNeeded(inv.Environment, r.Network)}
		if len(r.TxHash) > 16 {
			pv.Short = r.TxHash[:10] + "…" + r.TxHash[len(r.TxHash)-6:]
		}
		v.Payments = append(v.Payments, pv)
	}
	if v.State == "detected" {
		for _, pv := range v.Payments {
			if pv.Status == string(kassa.PaymentPending) {
				v.StatusText += ": " + pv.Progress(t)
				break
			}
		}
	}
	return v, nil
}

// IconURL is the content-hashed, immutable URL of a token icon Kassa serves
// under /static/; any other icon URI is returned as it is. The page and the payor
// API's available tokens link icons by it.
func IconURL(uri string) string {
	if name, ok := strings.CutPrefix(uri, "/static/"); ok {
		if _, ok := assets[name]; ok {
			return assetURL(name)
		}
	}
	return uri
}

// watched reports whether Kassa watches t's network.
func (p *Page) watched(t kassa.Token) bool {
	return p.cfg.Pay != nil && p.cfg.Pay.Watched(t.Environment, t.Network)
}

// pageTokens lists the tokens the payor may choose and, once one is locked and
// money is still owed, its deposit address and quote.
func (p *Page) pageTokens(ctx context.Context, inv *kassa.Invoice, v *pageView) error {
	if p.cfg.Registry == nil || p.cfg.Rates == nil {
		return nil
	}
	tokens := p.cfg.Pay.WatchedFirst(p.cfg.Registry.Tokens(inv.Environment))
	// A mainnet token on a network Kassa does not watch cannot be chosen: nobody
	// would see the payment. On a devnet that watches some network (--dev: the dev
	// chain) the others stay choosable, paid by simulation, and say so.
	anyWatched := len(tokens) > 0 && p.watched(tokens[0])
	for _, t := range tokens {
		if inv.Status == kassa.StatusUnderpaid && inv.LockedTokenID != nil && t.ID != *inv.LockedTokenID {
			continue
		}
		tv := tokenView{ID: t.ID, Symbol: t.Symbol, Name: t.Name, Network: t.Network, Icon: IconURL(t.IconURI), Available: true}
		if n, ok := p.cfg.Registry.Network(inv.Environment, t.Network); ok {
			tv.Network = n.DisplayName
		}
		watched := p.watched(t)
		if !watched && inv.Environment == kassa.Devnet && anyWatched {
			tv.Note = v.T.SimulatedOnly
		}
		if !watched && inv.Environment == kassa.Mainnet {
			tv.Available, tv.Reason = false, v.T.NotWatched
		} else if _, err := p.cfg.Rates.Rate(ctx, t); err != nil {
			tv.Available = false
			if kassa.ErrorCode(err) == "rate_unavailable" {
				tv.Reason = fmt.Sprintf(v.T.NoRate, t.Symbol, tv.Network)
			} else {
				tv.Reason = v.T.ErrorText(err)
			}
		}
		tv.Selected = inv.LockedTokenID != nil && *inv.LockedTokenID == t.ID
		if tv.Selected {
			v.Network, v.Symbol = tv.Network, t.Symbol
		}
		v.Tokens = append(v.Tokens, tv)
	}
	open := inv.Status == kassa.StatusUnpaid || inv.Status == kassa.StatusUnderpaid
	if inv.LockedTokenID == nil || !open || v.ShowQuestions {
		return nil
	}
	// While a payment is being confirmed the address is hidden and nothing more is
	// asked: the quote is only read, never renewed (a write) by showing the page,
	// its no-JS refresh included. When it ran out the page has none until then.
	var addr payment.Quote
	if v.State == "detected" {
		held, ok, err := p.cfg.Pay.HeldQuote(ctx, inv)
		if err != nil || !ok {
			return err
		}
		addr = held
	} else {
		var err error
		if addr, err = p.cfg.Pay.CurrentAddress(ctx, inv); err != nil {
			return err
		}
	}
	v.Address = &addr
	if strings.HasPrefix(addr.PaymentURI, "ethereum:") {
		v.WalletURI = template.URL(addr.PaymentURI) // built by kassa.PaymentURI from checked parts
	}
	v.QRBase = "/pay/" + inv.ID + "/qr.png?" + url.Values{"session": {v.Session}, "signature": {v.Signature}}.Encode()
	v.QRURL = v.QRBase + "&" + url.Values{"quote": {addr.ExpiresAt}}.Encode()
	if exp, ok := kassa.ParseTime(addr.ExpiresAt); ok {
		v.QuoteLeft, v.QuoteUntil = v.T.Left(exp.Sub(p.cfg.Now())), exp.UTC().Format("15:04")
	}
	return nil
}
