package merchantapi

import (
	"encoding/json"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// decodeEndpointInput reads a webhook endpoint create or update body. disabled is
// accepted only on update.
func decodeEndpointInput(r *http.Request, update bool) (kassa.WebhookEndpointInput, error) {
	var in kassa.WebhookEndpointInput
	err := httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "url":
			var v string
			if v, err = httpx.ReqString(f); err == nil {
				in.URL = &v
			}
		case "description":
			in.Description, err = httpx.OptString(f)
			if in.Description == nil && err == nil {
				in.Description = new(string)
			}
		case "enabled_events":
			var v []string
			if json.Unmarshal(f.Raw, &v) != nil || v == nil {
				err = httpx.ErrInvalidType(f.Path, "an array of event type strings")
			}
			in.EnabledEvents = v
		case "disabled":
			if !update {
				return false, nil
			}
			in.Disabled, err = httpx.OptBool(f)
		default:
			return false, nil
		}
		return true, err
	})
	return in, err
}

// CreateEndpoint answers POST /api/v1/webhook-endpoints (201, with the secret).
func (a *API) CreateEndpoint(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeEndpointInput(r, false)
	if err != nil {
		return err
	}
	e, err := a.webhooks.CreateWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, e.WithSecret())
	return nil
}

// ListEndpoints answers GET /api/v1/webhook-endpoints: every endpoint of the
// caller's environment, newest first.
func (a *API) ListEndpoints(w http.ResponseWriter, r *http.Request) error {
	es, err := a.webhooks.WebhookEndpoints(r.Context(), httpx.Principal(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, httpx.ListOf(es, false))
	return nil
}

// GetEndpoint answers GET /api/v1/webhook-endpoints/{endpointId}.
func (a *API) GetEndpoint(w http.ResponseWriter, r *http.Request) error {
	e, err := a.webhooks.WebhookEndpoint(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e)
	return nil
}

// UpdateEndpoint answers PATCH /api/v1/webhook-endpoints/{endpointId}: url,
// description, enabled_events, disabled.
func (a *API) UpdateEndpoint(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeEndpointInput(r, true)
	if err != nil {
		return err
	}
	e, err := a.webhooks.UpdateWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e)
	return nil
}

// DeleteEndpoint answers DELETE /api/v1/webhook-endpoints/{endpointId} with {id,
// object, deleted: true}.
func (a *API) DeleteEndpoint(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("endpointId")
	if err := a.webhooks.DeleteWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), id); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "object": "webhook_endpoint", "deleted": true})
	return nil
}

// RotateEndpointSecret answers POST .../rotate-secret with the endpoint and its new
// secret; the old one keeps signing for 24 h.
func (a *API) RotateEndpointSecret(w http.ResponseWriter, r *http.Request) error {
	e, err := a.webhooks.RotateWebhookSecret(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e.WithSecret())
	return nil
}

// ListDeliveries answers GET .../deliveries: the delivery log, newest first, each
// delivery with its attempts.
func (a *API) ListDeliveries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := kassa.DeliveryFilter{EndpointID: r.PathValue("endpointId"), EventID: httpx.QueryValue(q, "event_id"),
		StartingAfter: httpx.QueryValue(q, "starting_after"), EndingBefore: httpx.QueryValue(q, "ending_before")}
	var err error
	if f.Limit, err = httpx.LimitParam(q, "limit"); err != nil {
		return err
	}
	switch st := httpx.QueryValue(q, "status"); st {
	case "", kassa.DeliveryPending, kassa.DeliverySucceeded, kassa.DeliveryFailed:
		f.Status = st
	default:
		return httpx.ErrInvalid("status", "invalid_status", "status must be pending, succeeded or failed.")
	}
	ds, more, err := a.webhooks.WebhookDeliveries(r.Context(), httpx.Principal(r.Context()), f)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, httpx.ListOf(ds, more))
	return nil
}
