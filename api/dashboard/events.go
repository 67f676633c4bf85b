package dashboard

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/kassapay/kassa"
)

// eventsView is the events page: a page of events with their JSON.
type eventsView struct {
	Events     []eventRow
	Types      []string
	Type       string
	Created    string
	Error      string
	Prev, Next string
}

// eventRow is one event and its JSON, indented.
type eventRow struct {
	*kassa.Event
	JSON string
}

// events serves GET /dashboard/developers/events?type=&created=: the session
// environment's events, newest first.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request, v *visit) error {
	q := r.URL.Query()
	view := eventsView{Types: kassa.EventTypes, Type: q.Get("type"), Created: q.Get("created")}
	f := kassa.EventFilter{MerchantID: v.m.ID, Environment: v.env(), Scope: kassa.ScopeMerchant, Limit: pageSize,
		StartingAfter: q.Get("starting_after"), EndingBefore: q.Get("ending_before")}
	if view.Type != "" {
		if !slices.Contains(kassa.EventTypes, view.Type) {
			view.Error = "Unknown event type " + view.Type + "."
		}
		f.Types = []string{view.Type}
	}
	since := map[string]time.Duration{"24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}
	if d, ok := since[view.Created]; ok {
		t := time.Now().Add(-d)
		f.CreatedGTE = &t
	} else if view.Created != "" {
		view.Error = "Unknown date range " + view.Created + "."
	}
	status := http.StatusOK
	if view.Error == "" {
		es, more, err := d.cfg.Events.Events(r.Context(), f)
		if err != nil {
			if kassa.ErrorKindOf(err) != kassa.KindInvalid {
				return err
			}
			view.Error = kassa.AsError(err).Message
		}
		for _, e := range es {
			var buf bytes.Buffer
			if json.Indent(&buf, e.Data, "", "  ") != nil {
				buf.Reset()
				buf.Write(e.Data)
			}
			view.Events = append(view.Events, eventRow{Event: e, JSON: buf.String()})
		}
		if len(es) > 0 {
			view.Prev, view.Next = cursorLinks(r, "/dashboard/developers/events", es[0].ID, es[len(es)-1].ID, more,
				f.EndingBefore != "", f.StartingAfter != "")
		}
	}
	if view.Error != "" {
		status = http.StatusBadRequest
	}
	d.render(w, r, status, "events.html", v, view)
	return nil
}
