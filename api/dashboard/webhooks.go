package dashboard

import (
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
)

// webhooksView is the webhook endpoints page with its create form.
type webhooksView struct {
	Endpoints []*kassa.WebhookEndpoint
	Types     []string
	URL       string
	Events    map[string]bool
	Error     string
	Env       kassa.Environment
}

// webhooks serves GET /dashboard/developers/webhooks.
func (d *Dashboard) webhooks(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := d.webhooksView(r, v)
	if err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "webhooks.html", v, view)
	return nil
}

func (d *Dashboard) webhooksView(r *http.Request, v *visit) (*webhooksView, error) {
	eps, err := d.cfg.Webhooks.WebhookEndpoints(r.Context(), v.principal())
	if err != nil {
		return nil, err
	}
	return &webhooksView{Endpoints: eps, Types: kassa.EventTypes, Events: map[string]bool{"*": true}, Env: v.env()}, nil
}

// createWebhook serves POST /dashboard/developers/webhooks {url, description,
// events...}: the endpoint's page follows (303), its signing secret there.
func (d *Dashboard) createWebhook(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := r.ParseForm(); err != nil {
		return kassa.Invalidf("", "invalid_form", "The form could not be read.")
	}
	in := endpointInput(r)
	ep, err := d.cfg.Webhooks.CreateWebhookEndpoint(r.Context(), v.principal(), in)
	if err != nil {
		if k := kassa.ErrorKindOf(err); k != kassa.KindInvalid && k != kassa.KindPermission && k != kassa.KindConflict {
			return err
		}
		view, verr := d.webhooksView(r, v)
		if verr != nil {
			return verr
		}
		view.Error, view.URL, view.Events = formMessage(err), *in.URL, map[string]bool{}
		for _, e := range in.EnabledEvents {
			view.Events[e] = true
		}
		d.render(w, r, http.StatusBadRequest, "webhooks.html", v, view)
		return nil
	}
	redirect(w, r, "/dashboard/developers/webhooks/"+ep.ID)
	return nil
}

// endpointInput reads the endpoint form: url, description and the events ticked.
func endpointInput(r *http.Request) kassa.WebhookEndpointInput {
	url, desc := strings.TrimSpace(r.PostFormValue("url")), strings.TrimSpace(r.PostFormValue("description"))
	events := r.PostForm["events"]
	for _, e := range events {
		if e == "*" {
			events = []string{"*"}
			break
		}
	}
	if events == nil {
		events = []string{}
	}
	return kassa.WebhookEndpointInput{URL: &url, Description: &desc, EnabledEvents: events}
}

// webhookView is one endpoint's page: its settings and its delivery log.
type webhookView struct {
	Endpoint   *kassa.WebhookEndpoint
	Deliveries []*kassa.WebhookDelivery
	Types      []string
	Events     map[string]bool
	Failed     int
	Notice     string
}

// webhook serves GET /dashboard/developers/webhooks/{id}.
func (d *Dashboard) webhook(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := d.webhookView(r, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	view.Notice = notices[r.URL.Query().Get("done")]
	d.render(w, r, http.StatusOK, "webhook.html", v, view)
	return nil
}

// notices say what the last action on an endpoint did (post/redirect/get).
var notices = map[string]string{"updated": "Saved.", "rotated": "The secret was rotated; the old one signs for 24 more hours.",
	"test": "A test event was queued: see its delivery below.", "resent": "Queued again.", "retried": "Every failed delivery was queued again."}

func (d *Dashboard) webhookView(r *http.Request, v *visit, id string) (*webhookView, error) {
	ep, err := d.cfg.Webhooks.WebhookEndpoint(r.Context(), v.principal(), id)
	if err != nil {
		return nil, err
	}
	ds, _, err := d.cfg.Webhooks.WebhookDeliveries(r.Context(), v.principal(), kassa.DeliveryFilter{EndpointID: id, Limit: 50})
	if err != nil {
		return nil, err
	}
	view := &webhookView{Endpoint: ep, Deliveries: ds, Types: kassa.EventTypes, Events: map[string]bool{}}
	for _, e := range ep.EnabledEvents {
		view.Events[e] = true
	}
	for _, dl := range ds {
		if dl.Status == kassa.DeliveryFailed {
			view.Failed++
		}
	}
	return view, nil
}
