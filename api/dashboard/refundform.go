package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/refund"
)

// refundForm is a refund's form as typed, values as text.
type refundForm struct {
	PaymentID   string // "" : the invoice's confirmed money
	AmountUSD   string // "" with AmountToken "": all that is still refundable
	AmountToken string // instead of AmountUSD: whole tokens, exactly
	Rate        string // paid | current
	To          string // address | claim (ask the payor)
	Address     string
	Reason      string
	Key         string // the create's idempotency key, made when the form was first shown
}

// Destinations of a refund's form.
const (
	refundToAddress = "address"
	refundToClaim   = "claim"
)

func readRefundForm(r *http.Request) refundForm {
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	f := refundForm{PaymentID: strings.ToLower(v("payment_id")), AmountUSD: v("amount_usd"), AmountToken: v("amount_token"),
		Rate: v("rate"), To: v("to"), Address: v("address"), Reason: v("reason"), Key: v("idempotency_key")}
	if f.To != refundToAddress {
		f.To = refundToClaim
	}
	return f
}

// create is the form as the refund service's request; decimals are the
// token's, to read AmountToken.
func (f refundForm) create(decimals int) (refund.Create, error) {
	c := refund.Create{PaymentID: f.PaymentID, Rate: kassa.RefundRate(f.Rate), Reason: f.Reason}
	if f.AmountUSD != "" {
		usd, err := kassa.ParseUSD(f.AmountUSD, "amount_usd")
		if err != nil {
			return c, err
		}
		c.AmountUSD = &usd
	}
	if f.AmountToken != "" {
		units, err := kassa.ParseUnits(f.AmountToken, decimals, "amount_token")
		if err != nil {
			return c, err
		}
		c.AmountUnits = units
	}
	if f.To == refundToAddress {
		if f.Address == "" {
			return c, kassa.Invalidf("address", "missing_param", "Enter the address.")
		}
		c.Address = f.Address
	}
	return c, nil
}

// body tells two submits of one key apart: every value that shapes the refund.
func (f refundForm) body() string {
	return url.Values{"payment_id": {f.PaymentID}, "amount_usd": {f.AmountUSD}, "amount_token": {f.AmountToken},
		"rate": {f.Rate}, "to": {f.To}, "address": {f.Address}, "reason": {f.Reason}}.Encode()
}

// refundFormView is the refund form, or its confirmation step when Review is
// set: what will be sent, with the form's values in hidden fields.
type refundFormView struct {
	Inv     *kassa.Invoice
	Payment *paymentRow // the payment refunded; nil: the invoice's confirmed money
	Form    refundForm
	Most    refundAmount // all that is still refundable: the default
	Errors  map[string]string
	Error   string        // a refusal of no field
	Review  *refundAmount // the confirmation step: what will be sent
	Proof   []field       // the re-authentication a refund to an address on mainnet needs
	Mainnet bool
}

// refundAmount is a planned refund in words.
type refundAmount struct {
	USD, Token, Network, Address string
	Number, TokenNumber          string // the amounts as typed, "2", "0.0033"
	Decimals                     int
	Rate                         kassa.RefundRate
}

func amountOf(p *refund.Preview, networkName string) refundAmount {
	return refundAmount{USD: p.AmountUSD.USD(), Number: p.AmountUSD.Number(), TokenNumber: kassa.FormatUnits(p.AmountUnits, p.Token.Decimals), Token: kassa.FormatUnits(p.AmountUnits, p.Token.Decimals) + " " + p.Token.Symbol,
		Network: networkName, Address: p.Address, Decimals: p.Token.Decimals, Rate: p.Rate}
}

// refundNew serves GET /dashboard/invoices/{id}/refund[?payment=ID]: the form,
// filled to refund all that is still refundable (of that payment) through a
// claim link, with a fresh idempotency key.
func (d *Dashboard) refundNew(w http.ResponseWriter, r *http.Request, v *visit) error {
	f := refundForm{PaymentID: strings.ToLower(r.URL.Query().Get("payment")), Rate: string(kassa.RefundRatePaid),
		To: refundToClaim, Key: kassa.NewUUID()}
	view, _, err := d.refundFormView(r, v, f)
	if err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "refund_new.html", v, view)
	return nil
}

// refundFormView reads the invoice (and the payment) the form refunds and all
// that is still refundable; nothing refundable is the service's 409.
func (d *Dashboard) refundFormView(r *http.Request, v *visit, f refundForm) (*refundFormView, kassa.Principal, error) {
	id := r.PathValue("id")
	p := v.principal()
	if d.cfg.Refunds == nil || !kassa.ValidUUID(id) {
		return nil, p, kassa.NotFound("invoice")
	}
	inv, receipts, err := d.cfg.Payments.InvoiceWithPayments(r.Context(), v.m.ID, id, 100)
	if err != nil {
		return nil, p, err
	}
	p.Environment = inv.Environment
	view := &refundFormView{Inv: inv, Form: f, Errors: map[string]string{}, Mainnet: inv.Environment == kassa.Mainnet}
	if f.PaymentID != "" {
		for _, pay := range receipts {
			if pay.ID == f.PaymentID {
				row := d.paymentRow(inv, pay)
				view.Payment = &row
			}
		}
		if view.Payment == nil {
			return nil, p, kassa.NotFound("payment")
		}
	}
	most, err := d.cfg.Refunds.Preview(r.Context(), p, inv.ID, refund.Create{PaymentID: f.PaymentID})
	if err != nil {
		return nil, p, err
	}
	view.Most = amountOf(most, d.networkName(inv.Environment, most.Network))
	return view, p, nil
}

// refundPost serves POST /dashboard/invoices/{id}/refund: step "review" checks
// the form and shows what will be sent (the service's Preview), "create" makes
// the refund (refundCreate), "edit" goes back to the form as typed. A refusal
// shows the form again with the message by its field.
func (d *Dashboard) refundPost(w http.ResponseWriter, r *http.Request, v *visit) error {
	f := readRefundForm(r)
	if r.PostFormValue("step") == "create" {
		return d.refundCreate(w, r, v, f)
	}
	view, p, err := d.refundFormView(r, v, f)
	if err != nil {
		return err
	}
	if r.PostFormValue("step") == "edit" {
		d.render(w, r, http.StatusOK, "refund_new.html", v, view)
		return nil
	}
	c, err := f.create(view.Most.Decimals)
	if err == nil {
		err = d.review(r, v, p, view, c)
	}
	if err != nil {
		return d.refundRefused(w, r, v, view, err)
	}
	d.render(w, r, http.StatusOK, "refund_new.html", v, view)
	return nil
}

// review fills the confirmation step of view: what c sends, and the proof
// inputs when it needs them.
func (d *Dashboard) review(r *http.Request, v *visit, p kassa.Principal, view *refundFormView, c refund.Create) error {
	plan, err := d.cfg.Refunds.Preview(r.Context(), p, view.Inv.ID, c)
	if err != nil {
		return err
	}
	review := amountOf(plan, d.networkName(p.Environment, plan.Network))
	view.Review = &review
	if refund.NeedsProof(p, c) {
		view.Proof, err = d.proofInputs(r.Context(), v)
	}
	return err
}

// refundCreate makes the refund of a confirmed form through the service's
// Create (the API's one rule) under the form's idempotency key, claimed before
// anything is read: a double submit makes one refund and both answer 303 to its
// page. A refund to an address on mainnet needs the current password (and code)
// first (refund.NeedsProof); a replay asks none, it makes nothing.
func (d *Dashboard) refundCreate(w http.ResponseWriter, r *http.Request, v *visit, f refundForm) error {
	inv, _, err := d.ownInvoice(r, v)
	if err != nil {
		return err
	}
	var view *refundFormView
	invoicePage := "/dashboard/invoices/" + inv.ID
	path, err := d.onceDone(r, v, inv.Environment, f.Key, f.body(), func() (string, error) {
		var p kassa.Principal
		var err error
		if view, p, err = d.refundFormView(r, v, f); err != nil {
			return "", err
		}
		c, err := f.create(view.Most.Decimals)
		if err != nil {
			return "", err
		}
		if refund.NeedsProof(p, c) {
			if err := d.review(r, v, p, view, c); err != nil {
				return "", err
			}
			if err := d.cfg.Core.LimitLogin(w, r); err != nil {
				return "", err
			}
			if err := d.cfg.SignIn.Reauthenticate(r.Context(), v.m.ID, proofOf(r, "current_password")); err != nil {
				return "", err
			}
		}
		ref, err := d.cfg.Refunds.Create(r.Context(), p, inv.ID, c)
		if err != nil {
			return "", err
		}
		return invoicePage + "/refunds/" + ref.ID + "?done=created", nil
	})
	switch {
	case errors.Is(err, kassa.ErrClaimLost): // the same form, sent twice at once: the first makes it
		redirect(w, r, invoicePage+"?done=refunding#refunds")
		return nil
	case err != nil && view != nil:
		return d.refundRefused(w, r, v, view, err)
	case err != nil:
		return err
	}
	redirect(w, r, path)
	return nil
}

// refundRefused shows the form again with err by its field, or the
// confirmation step when the proof was refused; other errors are the error page.
func (d *Dashboard) refundRefused(w http.ResponseWriter, r *http.Request, v *visit, view *refundFormView, err error) error {
	e := kassa.AsError(err)
	status, ok := formStatus[e.Kind]
	switch {
	case e.Kind == kassa.KindConflict && e.Code != "idempotency_key_in_use":
		status, ok = http.StatusConflict, true
	case !ok || e.Param == "idempotency_key":
		return err
	}
	msg := refundMessage(err)
	if e.Param == "current_password" || e.Param == "code" || e.Kind == kassa.KindRateLimited {
		param := e.Param
		if e.Kind == kassa.KindRateLimited {
			param, msg = "current_password", formWords["refund:too_many_attempts"]
		}
		view.Proof = withProofError(view.Proof, param, msg)
		d.render(w, r, status, "refund_new.html", v, view)
		return nil
	}
	view.Review, view.Proof = nil, nil
	switch param := e.Param; param {
	case "amount_usd", "amount_token", "rate", "address", "reason":
		view.Errors[param] = msg
	case "amount_token_units":
		view.Errors["amount_token"] = msg
	default:
		view.Error = msg
	}
	d.render(w, r, status, "refund_new.html", v, view)
	return nil
}
