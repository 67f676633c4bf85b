package dashboard

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"kassa"
	"kassa/api/httpx"
)

// Live updates of an invoice's page (Server-Sent Events).
const (
	liveCheckEvery = 15 * time.Second // a check and keep-alive even without events
	livePollEvery  = 2 * time.Second  // without an event stream, how often the invoice is read
	liveLifetime   = 30 * time.Minute // then the browser reconnects (EventSource does so by itself)
)

// liveView is what changes on an invoice's page as money arrives, as the page's
// script receives it: texts only, which it writes with textContent.
type liveView struct {
	Status    kassa.InvoiceStatus `json:"status"`
	Paid      string              `json:"paid"`
	Pending   string              `json:"pending"`
	CanCancel bool                `json:"can_cancel"`
	Payments  []livePayment       `json:"payments"`
	Timeline  []timelineRow       `json:"timeline"`
}

// livePayment is one row of the payments table.
type livePayment struct {
	Amount        string `json:"amount"`
	Status        string `json:"status"`
	Network       string `json:"network"`
	TxHash        string `json:"tx_hash"`
	TxURL         string `json:"tx_url"`
	Confirmations string `json:"confirmations"`
	Settlement    string `json:"settlement"`
	SettlementTx  string `json:"settlement_tx"`
	SettlementURL string `json:"settlement_url"`
}

func newLiveView(view *invoiceView) liveView {
	inv := view.Inv
	lv := liveView{Status: inv.Status, Paid: usd(inv.AmountPaid) + " of " + usd(inv.Amount), Pending: usd(inv.AmountPending),
		CanCancel: view.CanCancel, Payments: []livePayment{}, Timeline: view.Timeline}
	if lv.Timeline == nil {
		lv.Timeline = []timelineRow{}
	}
	for _, p := range view.Payments {
		row := livePayment{Amount: usd(p.AmountUSD), Status: string(p.Status), Network: p.Network, TxHash: p.TxHash,
			TxURL: p.TxURL, Confirmations: strconv.Itoa(p.Confirmations), Settlement: string(p.Settlement),
			SettlementURL: p.SettlementURL}
		if p.SettlementTxHash != nil {
			row.SettlementTx = *p.SettlementTxHash
		}
		lv.Payments = append(lv.Payments, row)
	}
	return lv
}

// invoiceLive serves GET /dashboard/invoices/{id}/live: an event stream of the
// invoice page's changing parts (liveView as JSON), sent at once and again each
// time they change. It wakes on the merchant's events that name the invoice and
// also checks on a timer; it ends when the client leaves, the session ends or
// after liveLifetime.
func (d *Dashboard) invoiceLive(w http.ResponseWriter, r *http.Request, v *visit) error {
	id := r.PathValue("id")
	view, err := d.invoiceView(r, v, id, false)
	if err != nil {
		return err
	}
	rc := httpx.Streaming(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	var events <-chan *kassa.Event
	every := livePollEvery
	if d.cfg.Stream != nil {
		sub := d.cfg.Stream.Subscribe(v.m.ID, view.Inv.Environment, kassa.ScopeMerchant)
		defer sub.Close()
		events, every = sub.Events(), liveCheckEvery
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	end := time.NewTimer(liveLifetime)
	defer end.Stop()
	var last []byte
	// send writes the view when it changed (or a comment to keep the connection
	// alive) and reports whether to go on.
	send := func(view *invoiceView, ping bool) bool {
		b, _ := json.Marshal(newLiveView(view))
		var err error
		switch {
		case !bytes.Equal(b, last):
			err = httpx.StreamWrite(w, rc, append(append([]byte("retry: 5000\ndata: "), b...), '\n', '\n'))
			last = b
		case ping:
			err = httpx.StreamWrite(w, rc, []byte(": ping\n\n"))
		}
		return err == nil
	}
	// refresh reads the page again; a session that ended ends the stream.
	refresh := func(ping bool) bool {
		if _, err := d.session(r); err != nil {
			return false
		}
		view, err := d.invoiceView(r, v, id, false)
		return err == nil && send(view, ping)
	}
	if !send(view, false) {
		return nil
	}
	key := []byte(id)
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-end.C:
			return nil
		case e, open := <-events:
			if !open {
				return nil // the stream stopped or dropped us: the browser reconnects
			}
			if bytes.Contains(e.Data, key) && !refresh(false) {
				return nil
			}
		case <-ticker.C:
			if !refresh(true) {
				return nil
			}
		}
	}
}
