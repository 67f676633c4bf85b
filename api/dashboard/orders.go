package dashboard

import (
	"net/http"
	"slices"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// ordersView is the order list and the status filter that made it, as in the URL.
type ordersView struct {
	Orders     []*commerce.Order
	Statuses   []commerce.OrderStatus
	Status     commerce.OrderStatus // the filter, "" for every status
	Error      string
	Prev, Next string // links to the neighbouring pages
}

// orders serves GET /dashboard/orders: the merchant's commerce orders of the
// session's environment, newest first, filtered by status and paged by cursor.
func (d *Dashboard) orders(w http.ResponseWriter, r *http.Request, v *visit) error {
	q := r.URL.Query()
	view := ordersView{Statuses: commerce.OrderStatuses, Status: commerce.OrderStatus(q.Get("status"))}
	f := commerce.OrderFilter{MerchantID: v.m.ID, Environment: v.env(), Limit: pageSize}
	if s := q.Get("starting_after"); s != "" {
		f.StartingAfter = &s
	}
	if s := q.Get("ending_before"); s != "" {
		f.EndingBefore = &s
	}
	status := http.StatusOK
	if view.Status != "" {
		if !slices.Contains(commerce.OrderStatuses, view.Status) {
			status, view.Error = http.StatusBadRequest, "Unknown status "+string(view.Status)+"."
		}
		f.Statuses = []commerce.OrderStatus{view.Status}
	}
	if view.Error == "" && d.cfg.Commerce != nil {
		orders, more, err := d.cfg.Commerce.Orders(r.Context(), f)
		if err != nil {
			if kassa.ErrorKindOf(err) != kassa.KindInvalid {
				return err
			}
			status, view.Error = http.StatusBadRequest, kassa.AsError(err).Message
		}
		view.Orders = orders
		if len(orders) > 0 {
			view.Prev, view.Next = cursorLinks(r, "/dashboard/orders", orders[0].ID, orders[len(orders)-1].ID, more,
				f.EndingBefore != nil, f.StartingAfter != nil)
		}
	}
	d.render(w, r, status, "orders.html", v, view)
	return nil
}
