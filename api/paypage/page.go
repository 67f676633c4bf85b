package paypage

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/refund"
)

// Config holds what the payment page needs.
type Config struct {
	Signer   kassa.SessionSigner // checks and makes the session signatures of its links
	Payor    kassa.PayorService  // the invoice of a session, the payor's answers and email
	Registry kassa.Registry      // networks and tokens; nil: no tokens offered
	Rates    kassa.RateSource    // USD prices of tokens; nil: no tokens offered
	Pay      *payment.Service    // deposit addresses and quotes
	Tracker  payment.Tracker     // receipts and their confirmations
	Stream   kassa.EventStream   // wakes the event stream; nil: it polls
	Logger   *slog.Logger        // internal errors
	Now      func() time.Time    // the service's clock
	// Refunds serves the refund claim page (/refund/{refundId}); nil: it is 404.
	Refunds *refund.Service
	// LimitClaim takes a token from the payor's per-address bucket before a
	// claim is tried; nil: no limit.
	LimitClaim func(w http.ResponseWriter, r *http.Request) error
}

// Page serves the hosted payment page and the refund claim page.
type Page struct {
	cfg Config
	cop *http.CrossOriginProtection // refuses the claim form posted from another origin
}

// New returns the payment page over cfg; Logger and Now must be set.
func New(cfg Config) *Page { return &Page{cfg: cfg, cop: http.NewCrossOriginProtection()} }

// pageCSP allows nothing but this origin's own script, styles and images: no
// inline script or style, no other host, no framing.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// pageSession finds the invoice of the session in the request's query or form.
// It answers the error page itself and returns nil when the session is missing,
// bad (401) or unknown, ended or for another invoice (404).
func (p *Page) pageSession(w http.ResponseWriter, r *http.Request) (*kassa.Invoice, string) {
	token, sig := r.FormValue("session"), r.FormValue("signature")
	lang := pageLang(r)
	if token == "" || sig == "" || !p.cfg.Signer.Verify(token, sig) {
		p.pageError(w, r, http.StatusUnauthorized, catalog(lang).ErrSession)
		return nil, ""
	}
	var inv *kassa.Invoice
	err := kassa.ErrSessionNotFound()
	if p.cfg.Payor != nil {
		inv, err = p.cfg.Payor.InvoiceBySession(r.Context(), token)
	}
	if err != nil || inv.ID != r.PathValue("invoiceId") {
		if err != nil && kassa.ErrorKindOf(err) != kassa.KindNotFound {
			httpx.LogError(p.cfg.Logger, r, "payment page", err)
			p.pageError(w, r, http.StatusInternalServerError, httpx.InternalMessage)
			return nil, ""
		}
		p.pageError(w, r, http.StatusNotFound, catalog(lang).ErrNotFound)
		return nil, ""
	}
	return inv, token
}

// pageHeaders are set on every HTML answer: the page carries a session, so it is
// never cached, never framed and never leaks its URL in a Referer.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Vary", "Accept-Encoding, Accept-Language")
}

// pageError renders the error page: the reason, no invoice data.
func (p *Page) pageError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	lang := pageLang(r)
	var buf bytes.Buffer
	_ = errorTmpl.Execute(&buf, map[string]any{"Lang": lang, "T": catalog(lang), "Asset": assetURL, "Message": msg})
	pageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderPage writes the page of inv with status, gzipped when accepted.
func (p *Page) renderPage(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice, token string, status int, notice, failure string) {
	v, err := p.buildPage(r.Context(), inv, token, pageLang(r))
	if err != nil {
		code, _ := httpx.Classify(err, "")
		if code == http.StatusInternalServerError {
			httpx.LogError(p.cfg.Logger, r, "payment page", err)
			p.pageError(w, r, code, httpx.InternalMessage)
			return
		}
		p.pageError(w, r, code, catalog(pageLang(r)).ErrorText(err))
		return
	}
	v.Notice, v.Error = notice, failure
	v.Watched = r.Method == http.MethodGet && r.URL.Query().Get("watch") == "1"
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, v); err != nil {
		p.cfg.Logger.Error("payment page template", "error", err.Error())
		p.pageError(w, r, http.StatusInternalServerError, httpx.InternalMessage)
		return
	}
	pageHeaders(w)
	httpx.WriteBody(w, r, status, buf.Bytes(), nil)
}

// Show serves GET /pay/{invoiceId}: the page of the session's invoice.
func (p *Page) Show(w http.ResponseWriter, r *http.Request) {
	inv, token := p.pageSession(w, r)
	if inv == nil {
		return
	}
	notice := ""
	switch t := catalog(pageLang(r)); r.URL.Query().Get("done") {
	case "answers":
		notice = t.Answered
	case "email":
		notice = t.Saved
	}
	p.renderPage(w, r, inv, token, http.StatusOK, notice, "")
}

// FormFunc handles one of the page's forms for the session's invoice.
type FormFunc func(r *http.Request, inv *kassa.Invoice) error

// Form wraps the page's form handlers: the session comes from the form; a
// handler's error shows on the page (400 and the like); success goes back to the
// page (303, with done naming the form for its notice), so a reload never posts twice.
func (p *Page) Form(done string, h FormFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			p.pageError(w, r, http.StatusBadRequest, catalog(pageLang(r)).FormUnreadable)
			return
		}
		inv, token := p.pageSession(w, r)
		if inv == nil {
			return
		}
		if err := h(r, inv); err != nil {
			e := kassa.AsError(err)
			if e.Kind == kassa.KindInternal {
				httpx.LogError(p.cfg.Logger, r, "payment page form", err)
			}
			status, _ := httpx.Classify(err, "")
			if fresh, ferr := p.cfg.Payor.InvoiceBySession(r.Context(), token); ferr == nil {
				inv = fresh
			}
			p.renderPage(w, r, inv, token, status, "", catalog(pageLang(r)).ErrorText(err))
			return
		}
		v := "/pay/" + inv.ID + "?session=" + url.QueryEscape(token) + "&signature=" + url.QueryEscape(p.cfg.Signer.Sign(token)) +
			"&lang=" + pageLang(r) + "&done=" + done
		http.Redirect(w, r, v, http.StatusSeeOther)
	}
}

// ChooseToken serves the token form (POST /pay/{invoiceId}/token): it locks the
// chosen token, as POST /api/v1/payments/payment-address
// does: not while a required question is unanswered (409 answers_required).
func (p *Page) ChooseToken(r *http.Request, inv *kassa.Invoice) error {
	id, err := strconv.ParseInt(r.PostFormValue("token_id"), 10, 64)
	if err != nil {
		return httpx.ErrInvalid("token_id", "invalid_token", "Choose a token.")
	}
	_, err = p.cfg.Pay.LockAddress(r.Context(), inv, id)
	return err
}

// SaveAnswers serves the questions form (POST /pay/{invoiceId}/answers): it
// stores the answers; "skip" (offered when every question is
// optional) sends none.
func (p *Page) SaveAnswers(r *http.Request, inv *kassa.Invoice) error {
	var rs []kassa.FormResponse
	for _, q := range inv.Questions {
		if r.PostFormValue("skip") != "" {
			break
		}
		if v := strings.TrimSpace(r.PostFormValue("q." + q.ID)); v != "" {
			rs = append(rs, kassa.FormResponse{QuestionID: q.ID, Response: v})
		}
	}
	_, err := p.cfg.Payor.SubmitForm(r.Context(), inv.MerchantID, inv.ID, rs)
	return err
}

// SaveEmail serves the email form (POST /pay/{invoiceId}/email): the address the
// receipt goes to.
func (p *Page) SaveEmail(r *http.Request, inv *kassa.Invoice) error {
	email := strings.TrimSpace(r.PostFormValue("email"))
	if err := kassa.CheckEmail("email", email); err != nil {
		return err
	}
	_, err := p.cfg.Payor.SetCustomerEmail(r.Context(), inv.MerchantID, inv.ID, email)
	return err
}
