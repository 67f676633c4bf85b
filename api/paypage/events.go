package paypage

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"kassa"
	"kassa/api/httpx"
)

// Server-Sent Events of the payment page.
const (
	sseCheckEvery = 15 * time.Second // a check (and keep-alive) even without events: expiry has none until swept
	ssePollEvery  = 2 * time.Second  // without an event stream, how often the invoice is read
	sseLifetime   = 30 * time.Minute // then the browser reconnects (EventSource does so by itself)
)

// Events serves GET /pay/{invoiceId}/events: the payment-status object
// (as GET /api/v1/payments/payment-status answers it) each time it changes. It
// wakes on the merchant's events and also checks on a timer; it ends when the
// invoice is over, the client leaves or the server shuts down.
func (p *Page) Events(w http.ResponseWriter, r *http.Request) {
	inv, token := p.pageSession(w, r)
	if inv == nil {
		return
	}
	rc := httpx.Streaming(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var events <-chan *kassa.Event
	every := ssePollEvery
	if p.cfg.Stream != nil {
		sub := p.cfg.Stream.Subscribe(inv.MerchantID, inv.Environment, kassa.ScopeMerchant)
		defer sub.Close()
		events, every = sub.Events(), sseCheckEvery
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	end := time.NewTimer(sseLifetime)
	defer end.Stop()
	id := []byte(inv.ID)
	var last []byte
	// send writes the status when it changed (or a comment to keep the connection
	// alive) and reports whether to go on.
	send := func(ping bool) bool {
		fresh, err := p.cfg.Payor.InvoiceBySession(r.Context(), token)
		if err != nil {
			return false
		}
		st, err := p.cfg.Tracker.Status(r.Context(), fresh)
		if err != nil {
			return false
		}
		b, _ := json.Marshal(st)
		switch {
		case !bytes.Equal(b, last):
			err = httpx.StreamWrite(w, rc, append(append([]byte("data: "), b...), '\n', '\n'))
			last = b
		case ping:
			err = httpx.StreamWrite(w, rc, []byte(": ping\n\n"))
		}
		return err == nil && (fresh.Status == kassa.StatusUnpaid || fresh.Status == kassa.StatusUnderpaid)
	}
	if !send(false) {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case e, open := <-events:
			if !open {
				return // the stream stopped (shutdown) or dropped us: the browser reconnects
			}
			if bytes.Contains(e.Data, id) && !send(false) {
				return
			}
		case <-ticker.C:
			if !send(true) {
				return
			}
		}
	}
}
