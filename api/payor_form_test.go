package api_test

import (
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestSubmitForm(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		created := m.createInvoice(`{"amount_usd": 5, "questions": {"questions": [
			{"id": "email", "question": "Your email?", "type": "email", "validation": {"required": true}},
			{"id": "size", "question": "Size?", "type": "text", "validation": {"required": false}}]}}`)
		id, ps := created["invoice_id"].(string), session(created)
		submit := func(body string) *response {
			t.Helper()
			return e.do(request{method: "POST", path: "/api/v1/payments/submit-form", body: body, headers: ps})
		}

		r := e.do(request{method: "GET", path: "/api/v1/payments/questions", headers: ps})
		expectStatus(t, r, 200)
		if qs := r.obj(t)["questions"].([]any); len(qs) != 2 {
			t.Fatalf("questions %s", r.body)
		}
		for _, tc := range []struct{ name, body, code, param string }{
			{"missing required", `{"responses": [{"question_id": "size", "response": "M"}]}`, "missing_response", "responses"},
			{"unknown id", `{"responses": [{"question_id": "email", "response": "a@b.example"}, {"question_id": "x", "response": "1"}]}`, "unknown_question", "responses[1].question_id"},
			{"wrong type", `{"responses": [{"question_id": "email", "response": 5}]}`, "invalid_type", "responses[0].response"},
			{"bad email", `{"responses": [{"question_id": "email", "response": "nope"}]}`, "invalid_response", "responses[0].response"},
			{"not a list", `{"responses": {}}`, "invalid_type", "responses"},
			{"no responses", `{}`, "missing_param", "responses"},
			{"extra field", `{"responses": [], "x": 1}`, "unknown_parameter", "x"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectError(t, submit(tc.body), 400, "invalid_request_error", tc.code, tc.param)
			})
		}
		r = submit(`{"responses": [{"question_id": "email", "response": "payor@example.com"}, {"question_id": "size", "response": "M"}]}`)
		expectStatus(t, r, 200)
		if r.obj(t)["success"] != true {
			t.Fatalf("submit %s", r.body)
		}
		inv := m.get("/api/v1/invoices/" + id).obj(t)
		if rs, _ := inv["form_responses"].([]any); len(rs) != 2 {
			t.Fatalf("form_responses %v", inv["form_responses"])
		}
		// An invoice without questions takes no answers.
		plain := session(m.createInvoice(`{"amount_usd": 5}`))
		r = e.do(request{method: "POST", path: "/api/v1/payments/submit-form", body: `{"responses": []}`, headers: plain})
		expectError(t, r, 400, "invalid_request_error", "no_questions", "responses")
	})
}
