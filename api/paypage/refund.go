package paypage

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/refund"
)

// The refund claim page, /refund/{refundId}?t=TOKEN (decisions.md, "Refunds,
// and money that needs a person"): where a payor gives the address a refund
// goes to, then follows it to confirmed. The token is the credential; a wrong
// one, an unknown id and a refund without a claim all show the same 404.

// refundClaim finds the refund of the request's claim token (query or form).
// It answers the error page itself and returns nil when there is none.
func (p *Page) refundClaim(w http.ResponseWriter, r *http.Request) (*refund.Claim, string) {
	token := r.FormValue("t")
	t := refundCatalog(pageLang(r))
	if p.cfg.Refunds == nil || token == "" {
		p.refundError(w, r, http.StatusNotFound, t.ErrNotFound)
		return nil, ""
	}
	c, err := p.cfg.Refunds.ByClaim(r.Context(), r.PathValue("refundId"), token)
	if err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			p.refundError(w, r, http.StatusNotFound, t.ErrNotFound)
		} else {
			httpx.LogError(p.cfg.Logger, r, "refund page", err)
			p.refundError(w, r, http.StatusInternalServerError, httpx.InternalMessage)
		}
		return nil, ""
	}
	return c, token
}

// refundError renders the error page in the claim page's words: no refund data.
func (p *Page) refundError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	lang := pageLang(r)
	var buf bytes.Buffer
	_ = errorTmpl.Execute(&buf, map[string]any{"Lang": lang, "T": refundCatalog(lang), "Asset": assetURL, "Message": msg})
	pageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderRefund writes the claim page of c with status.
func (p *Page) renderRefund(w http.ResponseWriter, r *http.Request, c *refund.Claim, token string, status int, edit func(*refundView)) {
	v := p.buildRefund(c, token, pageLang(r))
	if edit != nil {
		edit(v)
	}
	var buf bytes.Buffer
	if err := refundTmpl.Execute(&buf, v); err != nil {
		p.cfg.Logger.Error("refund page template", "error", err.Error())
		p.refundError(w, r, http.StatusInternalServerError, httpx.InternalMessage)
		return
	}
	pageHeaders(w)
	httpx.WriteBody(w, r, status, buf.Bytes(), nil)
}

// ShowRefund serves GET /refund/{refundId}?t=TOKEN: the claim form while the
// refund awaits its address, then where the refund stands.
func (p *Page) ShowRefund(w http.ResponseWriter, r *http.Request) {
	c, token := p.refundClaim(w, r)
	if c == nil {
		return
	}
	p.renderRefund(w, r, c, token, http.StatusOK, func(v *refundView) {
		if r.URL.Query().Get("done") == "claim" && v.State != "claim" {
			v.Notice = v.T.Saved
		}
	})
}

// ClaimRefund serves the claim form, POST /refund/{refundId} (t, address,
// confirm): the refund service's Claim, as POST /api/v1/refunds/{refundId}/claim
// calls it. Success and a refund claimed already go back to the page (303), which
// shows where the refund stands; a bad address shows the form again with what was
// typed and the error in words. Posts from another origin are refused (403), and
// each post takes a token from the payor's per-address bucket first.
func (p *Page) ClaimRefund(w http.ResponseWriter, r *http.Request) {
	t := refundCatalog(pageLang(r))
	if err := p.cop.Check(r); err != nil {
		p.refundError(w, r, http.StatusForbidden, t.CrossOrigin)
		return
	}
	if err := r.ParseForm(); err != nil {
		p.refundError(w, r, http.StatusBadRequest, t.FormUnreadable)
		return
	}
	t = refundCatalog(pageLang(r))
	if p.cfg.LimitClaim != nil {
		if err := p.cfg.LimitClaim(w, r); err != nil {
			p.refundError(w, r, http.StatusTooManyRequests, t.ErrorText(err))
			return
		}
	}
	c, token := p.refundClaim(w, r)
	if c == nil {
		return
	}
	address := strings.TrimSpace(r.PostFormValue("address"))
	back := refundPath(c.Refund.ID, token, pageLang(r))
	if c.Refund.Status != kassa.RefundAwaitingAddress || c.Refund.ClaimLapsed(p.cfg.Now()) {
		http.Redirect(w, r, back, http.StatusSeeOther) // claimed already, or lapsed: the page says which
		return
	}
	failed := func(status int, msg string) {
		p.renderRefund(w, r, c, token, status, func(v *refundView) { v.Typed, v.Error = address, msg })
	}
	if r.PostFormValue("confirm") == "" {
		failed(http.StatusBadRequest, t.ConfirmNeeded)
		return
	}
	_, err := p.cfg.Refunds.Claim(r.Context(), c.Refund.ID, token, address)
	switch e := kassa.AsError(err); {
	case err == nil:
		http.Redirect(w, r, back+"&done=claim", http.StatusSeeOther)
	case e.Kind == kassa.KindInvalid:
		failed(http.StatusBadRequest, t.ErrorText(err))
	case e.Kind == kassa.KindNotFound || e.Code == "refund_claimed":
		http.Redirect(w, r, back, http.StatusSeeOther) // claimed or lapsed meanwhile
	default:
		httpx.LogError(p.cfg.Logger, r, "refund claim", err)
		p.refundError(w, r, http.StatusInternalServerError, httpx.InternalMessage)
	}
}

// RefundEvents serves GET /refund/{refundId}/events?t=TOKEN: the payor's view of
// the refund (as the claim API answers it) each time it changes, until it is
// confirmed, failed or canceled. It wakes on the merchant's events that name the
// refund and checks on a timer anyway.
func (p *Page) RefundEvents(w http.ResponseWriter, r *http.Request) {
	c, token := p.refundClaim(w, r)
	if c == nil {
		return
	}
	id := c.Refund.ID
	httpx.SSEView{Stream: p.cfg.Stream, MerchantID: c.Refund.MerchantID, Env: c.Refund.Environment, Key: id,
		Read: func(ctx context.Context) (any, bool, error) {
			fresh, err := p.cfg.Refunds.ByClaim(ctx, id, token)
			if err != nil {
				return nil, false, err
			}
			return fresh.Refund.PayorView(), !fresh.Refund.Status.Final(), nil
		}}.Serve(w, r)
}
