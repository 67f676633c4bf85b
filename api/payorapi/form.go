package payorapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// Questions serves GET /api/v1/payments/questions: the invoice's question schema
// (an empty list when it asks nothing) and the answers given so far.
func (a *API) Questions(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	qs, rs := inv.Questions, inv.FormResponses
	if qs == nil {
		qs = []kassa.Question{}
	}
	if rs == nil {
		rs = []kassa.FormResponse{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"questions": qs, "responses": rs})
	return nil
}

// SubmitForm serves POST /api/v1/payments/submit-form {responses: [{question_id, response}]}.
func (a *API) SubmitForm(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	rs, err := decodeResponses(r)
	if err != nil {
		return err
	}
	if _, err := a.cfg.Payor.SubmitForm(r.Context(), inv.MerchantID, inv.ID, rs); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}

// decodeResponses reads a submit-form body strictly.
func decodeResponses(r *http.Request) ([]kassa.FormResponse, error) {
	var list *httpx.Field
	err := httpx.DecodeJSON(r, func(f httpx.Field) (bool, error) {
		if f.Key != "responses" {
			return false, nil
		}
		list = &f
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if list == nil || list.Null() {
		return nil, httpx.ErrMissing("responses")
	}
	var raw []json.RawMessage
	if len(list.Raw) == 0 || list.Raw[0] != '[' || json.Unmarshal(list.Raw, &raw) != nil {
		return nil, httpx.ErrInvalidType("responses", "an array of {question_id, response}")
	}
	out := make([]kassa.FormResponse, 0, len(raw))
	for i, item := range raw {
		path := "responses[" + strconv.Itoa(i) + "]"
		var resp kassa.FormResponse
		seen := 0
		err := httpx.DecodeObject(httpx.Field{Path: path, Raw: item}, func(f httpx.Field) (known bool, err error) {
			switch f.Key {
			case "question_id":
				resp.QuestionID, err = httpx.ReqString(f)
			case "response":
				resp.Response, err = httpx.ReqString(f)
			default:
				return false, nil
			}
			seen++
			return true, err
		})
		if err != nil {
			return nil, err
		}
		if seen != 2 {
			return nil, httpx.ErrInvalid(path, "missing_param", path+" needs question_id and response.")
		}
		out = append(out, resp)
	}
	return out, nil
}
