package dashboard

import (
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// orderView is a commerce order's page, with the cancel form as typed when it
// was refused.
type orderView struct {
	O             *commerce.Order
	CanCancel     bool                   // the API's actions.canCancel
	CancelKey     string                 // this form's idempotency key: a double submit cancels once
	Simulate      []commerce.OrderStatus // devnet only: the simulate targets reachable from here
	RefundAddress string
	Error, Param  string
}

// findOrder returns one of the signed-in merchant's orders and the principal
// that acts on it: the order's own environment, whatever the switch says (as an
// invoice's page does). Another merchant's order is not found.
func (d *Dashboard) findOrder(r *http.Request, v *visit, id string) (*commerce.Order, kassa.Principal, error) {
	p := v.principal()
	if d.cfg.Commerce == nil || !kassa.ValidUUID(id) {
		return nil, p, kassa.NotFound("order")
	}
	o, err := d.cfg.Commerce.Order(r.Context(), p, id)
	if kassa.ErrorKindOf(err) == kassa.KindNotFound {
		p.Environment = kassa.Mainnet
		if v.env() == kassa.Mainnet {
			p.Environment = kassa.Devnet
		}
		o, err = d.cfg.Commerce.Order(r.Context(), p, id)
	}
	return o, p, err
}

// order serves GET /dashboard/orders/{id}.
func (d *Dashboard) order(w http.ResponseWriter, r *http.Request, v *visit) error {
	o, _, err := d.findOrder(r, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "order.html", v, newOrderView(o))
	return nil
}

func newOrderView(o *commerce.Order) *orderView {
	view := &orderView{O: o, CanCancel: o.CanCancelNow(), CancelKey: kassa.NewUUID()}
	if o.Environment == kassa.Devnet {
		for _, to := range commerce.SimulateTargets {
			if _, err := commerce.TransitionPath(o, to); err == nil {
				view.Simulate = append(view.Simulate, to)
			}
		}
	}
	return view
}

// cancelOrder serves POST /dashboard/orders/{id}/cancel {idempotency_key,
// refund_address}: the API's order cancel. The form's key makes a second submit
// of the same form a replay (303 to the order) rather than a second cancel.
func (d *Dashboard) cancelOrder(w http.ResponseWriter, r *http.Request, v *visit) error {
	o, p, err := d.findOrder(r, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	var req commerce.CancelRequest
	refund := strings.TrimSpace(r.PostFormValue("refund_address"))
	if refund != "" {
		req.RefundAddress = &refund
	}
	path := "/dashboard/orders/" + o.ID
	err = d.once(r, v, o.Environment, r.PostFormValue("idempotency_key"), "refund="+refund, path, func() error {
		_, err := d.cfg.Commerce.Cancel(r.Context(), p, o.ID, req)
		return err
	})
	if kassa.ErrorKindOf(err) == kassa.KindInvalid && kassa.AsError(err).Param != "idempotency_key" {
		view := newOrderView(o)
		e := kassa.AsError(err)
		view.Error, view.Param, view.RefundAddress = formMessage(err), e.Param, refund
		d.render(w, r, http.StatusBadRequest, "order.html", v, view)
		return nil
	}
	if err != nil {
		return err
	}
	redirect(w, r, path)
	return nil
}

// simulateOrder serves POST /dashboard/orders/{id}/simulate {to}: the API's
// devnet simulation, which refuses mainnet orders itself.
func (d *Dashboard) simulateOrder(w http.ResponseWriter, r *http.Request, v *visit) error {
	o, p, err := d.findOrder(r, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	req := commerce.SimulateRequest{TransitionTo: commerce.OrderStatus(r.PostFormValue("to"))}
	if err := commerce.CheckSimulate(req); err != nil {
		return err
	}
	if _, err := d.cfg.Commerce.Simulate(r.Context(), p, o.ID, req); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/orders/"+o.ID)
	return nil
}
