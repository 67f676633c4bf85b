package api

import (
	"encoding/json"
	"net/http"

	"kassa"
	"kassa/api/httpx"
)

// decodeEndpointInput reads a webhook endpoint create or update body. disabled is
// accepted only on update.
func decodeEndpointInput(r *http.Request, update bool) (kassa.WebhookEndpointInput, error) {
	var in kassa.WebhookEndpointInput
	body, err := httpx.ReadBody(r)
	if err != nil {
		return in, err
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return in, err
	}
	for _, f := range fields {
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
				err = httpx.ErrUnknownParam(f.Key)
			} else {
				in.Disabled, err = httpx.OptBool(f)
			}
		default:
			err = httpx.ErrUnknownParam(f.Key)
		}
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// createEndpoint answers POST /api/v1/webhook-endpoints (201, with the secret).
func (s *server) createEndpoint(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeEndpointInput(r, false)
	if err != nil {
		return err
	}
	e, err := s.cfg.Webhooks.CreateWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, kassa.SecretShown{WebhookEndpoint: e})
	return nil
}

// listEndpoints answers GET /api/v1/webhook-endpoints: every endpoint of the
// caller's environment, newest first.
func (s *server) listEndpoints(w http.ResponseWriter, r *http.Request) error {
	es, err := s.cfg.Webhooks.WebhookEndpoints(r.Context(), httpx.Principal(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, listOf(es, false))
	return nil
}

func (s *server) getEndpoint(w http.ResponseWriter, r *http.Request) error {
	e, err := s.cfg.Webhooks.WebhookEndpoint(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e)
	return nil
}

// updateEndpoint answers PATCH: url, description, enabled_events, disabled.
func (s *server) updateEndpoint(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeEndpointInput(r, true)
	if err != nil {
		return err
	}
	e, err := s.cfg.Webhooks.UpdateWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, e)
	return nil
}

// deleteEndpoint answers DELETE with {id, object, deleted: true}.
func (s *server) deleteEndpoint(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("endpointId")
	if err := s.cfg.Webhooks.DeleteWebhookEndpoint(r.Context(), httpx.Principal(r.Context()), id); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "object": "webhook_endpoint", "deleted": true})
	return nil
}

// rotateEndpointSecret answers POST .../rotate-secret with the endpoint and its new
// secret; the old one keeps signing for 24 h.
func (s *server) rotateEndpointSecret(w http.ResponseWriter, r *http.Request) error {
	e, err := s.cfg.Webhooks.RotateWebhookSecret(r.Context(), httpx.Principal(r.Context()), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, kassa.SecretShown{WebhookEndpoint: e})
	return nil
}

// listDeliveries answers GET .../deliveries: the delivery log, newest first, each
// delivery with its attempts.
func (s *server) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := kassa.DeliveryFilter{EndpointID: r.PathValue("endpointId"), EventID: httpx.QueryValue(q, "event_id"),
		StartingAfter: httpx.QueryValue(q, "starting_after"), EndingBefore: httpx.QueryValue(q, "ending_before")}
	var err error
	if f.Limit, err = httpx.IntParam(q, "limit", defaultLimit, 1, maxLimit); err != nil {
		return err
	}
	switch st := httpx.QueryValue(q, "status"); st {
	case "", kassa.DeliveryPending, kassa.DeliverySucceeded, kassa.DeliveryFailed:
		f.Status = st
	default:
		return httpx.ErrInvalid("status", "invalid_status", "status must be pending, succeeded or failed.")
	}
	ds, more, err := s.cfg.Webhooks.WebhookDeliveries(r.Context(), httpx.Principal(r.Context()), f)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, listOf(ds, more))
	return nil
}
