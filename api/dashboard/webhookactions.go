package dashboard

import (
	"net/http"

	"github.com/kassapay/kassa"
)

// webhookAction serves POST /dashboard/developers/webhooks/{id}/{action}: update
// (url, description, events), disable, enable, rotate, test, resend (event_id),
// retry-failed and delete, each then back to the endpoint's page (303).
func (d *Dashboard) webhookAction(w http.ResponseWriter, r *http.Request, v *visit) error {
	id, p := r.PathValue("id"), v.principal()
	if err := r.ParseForm(); err != nil {
		return kassa.Invalidf("", "invalid_form", "The form could not be read.")
	}
	done := ""
	var err error
	switch r.PathValue("action") {
	case "update":
		_, err = d.cfg.Webhooks.UpdateWebhookEndpoint(r.Context(), p, id, endpointInput(r))
		done = "updated"
	case "disable", "enable":
		off := r.PathValue("action") == "disable"
		_, err = d.cfg.Webhooks.UpdateWebhookEndpoint(r.Context(), p, id, kassa.WebhookEndpointInput{Disabled: &off})
		done = "updated"
	case "rotate":
		_, err = d.cfg.Webhooks.RotateWebhookSecret(r.Context(), p, id)
		done = "rotated"
	case "test":
		err = d.sendTest(r, v, id)
		done = "test"
	case "resend":
		_, err = d.cfg.Webhooks.ResendEvent(r.Context(), p, r.PostFormValue("event_id"), id)
		done = "resent"
	case "retry-failed":
		err = d.retryFailed(r, v, id)
		done = "retried"
	case "delete":
		if err = d.cfg.Webhooks.DeleteWebhookEndpoint(r.Context(), p, id); err == nil {
			redirect(w, r, "/dashboard/developers/webhooks")
			return nil
		}
	default:
		return kassa.NotFound("page")
	}
	if err != nil {
		return err
	}
	redirect(w, r, "/dashboard/developers/webhooks/"+id+"?done="+done)
	return nil
}

// sendTest sends the environment's newest event to this endpoint alone: a real,
// signed event the receiver can verify, delivered and logged like any other.
func (d *Dashboard) sendTest(r *http.Request, v *visit, id string) error {
	events, _, err := d.cfg.Events.Events(r.Context(), kassa.EventFilter{MerchantID: v.m.ID, Environment: v.env(),
		Scope: kassa.ScopeMerchant, Limit: 1})
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return kassa.Errorf(kassa.KindConflict, "no_events", "There is no %s event to send yet: create an invoice first.", v.env())
	}
	_, err = d.cfg.Webhooks.ResendEvent(r.Context(), v.principal(), events[0].ID, id)
	return err
}

// retryFailed queues every failed delivery of the endpoint's log again.
func (d *Dashboard) retryFailed(r *http.Request, v *visit, id string) error {
	ds, _, err := d.cfg.Webhooks.WebhookDeliveries(r.Context(), v.principal(),
		kassa.DeliveryFilter{EndpointID: id, Status: kassa.DeliveryFailed, Limit: 100})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, dl := range ds {
		if seen[dl.EventID] {
			continue
		}
		seen[dl.EventID] = true
		if _, err := d.cfg.Webhooks.ResendEvent(r.Context(), v.principal(), dl.EventID, id); err != nil {
			return err
		}
	}
	return nil
}
