package merchantapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// eventList is the events list response of docs/api.md 2.8.
type eventList struct {
	Success bool                     `json:"success"`
	Data    httpx.List[*kassa.Event] `json:"data"`
}

// ListEvents answers GET /api/v1/events: the caller's events in its environment,
// merchant events for merchant keys and commerce.* events for commerce keys.
func (a *API) ListEvents(w http.ResponseWriter, r *http.Request) error {
	f, err := parseEventList(r.URL.Query(), httpx.Principal(r.Context()))
	if err != nil {
		return err
	}
	events, more, err := a.events.Events(r.Context(), f)
	if err != nil {
		return err
	}
	out := eventList{Success: true, Data: httpx.ListOf(events, more)} // an empty page is [], never null
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// parseEventList reads the query of the events list.
func parseEventList(q url.Values, p kassa.Principal) (kassa.EventFilter, error) {
	f := kassa.EventFilter{MerchantID: p.MerchantID, Environment: p.Environment, Scope: p.Scope}
	var err error
	if f.Limit, err = httpx.LimitParam(q, "limit"); err != nil {
		return f, err
	}
	types, ok := httpx.CommaList(q, "type")
	if !ok {
		return f, httpx.ErrInvalid("type", "invalid_event_type", "type must be a comma-separated list of event types.")
	}
	for _, t := range types {
		if !kassa.ValidEventPattern(t) {
			return f, httpx.ErrInvalid("type", "invalid_event_type", "Unknown event type "+strconv.Quote(t)+"; use a type such as invoice.paid or a family such as invoice.*.")
		}
	}
	f.Types = types
	if f.CreatedGTE, err = httpx.TimeParam(q, "created_gte"); err != nil {
		return f, err
	}
	if f.CreatedLTE, err = httpx.TimeParam(q, "created_lte"); err != nil {
		return f, err
	}
	for _, c := range []struct {
		name string
		dst  *string
	}{{"starting_after", &f.StartingAfter}, {"ending_before", &f.EndingBefore}} {
		v := httpx.QueryValue(q, c.name)
		if v != "" && !kassa.ValidEventID(v) {
			return f, httpx.ErrInvalid(c.name, "invalid_cursor", c.name+" must be an event id (evt_…).")
		}
		*c.dst = v
	}
	return f, nil
}

// GetEvent answers GET /api/v1/events/{eventId}.
func (a *API) GetEvent(w http.ResponseWriter, r *http.Request) error {
	p := httpx.Principal(r.Context())
	e, err := a.events.Event(r.Context(), p.MerchantID, p.Environment, p.Scope, r.PathValue("eventId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e)
	return nil
}

// ResendEvent answers POST /api/v1/events/{eventId}/resend: the event is queued
// again for {endpoint_id}, or for every enabled endpoint that wants it, and the new
// deliveries are returned (202: they run in the background).
func (a *API) ResendEvent(w http.ResponseWriter, r *http.Request) error {
	endpointID := ""
	err := httpx.DecodeRequest(r, httpx.BodyOptional, func(f httpx.Field) (known bool, err error) {
		if f.Key != "endpoint_id" {
			return false, nil
		}
		endpointID, err = httpx.ReqString(f)
		return true, err
	})
	if err != nil {
		return err
	}
	ds, err := a.webhooks.ResendEvent(r.Context(), httpx.Principal(r.Context()), r.PathValue("eventId"), endpointID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusAccepted, httpx.ListOf(ds, false))
	return nil
}
