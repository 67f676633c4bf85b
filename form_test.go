package kassa

import "testing"

func TestCheckResponses(t *testing.T) {
	qs := []Question{
		{ID: "email", Question: "Email?", Type: "email", Validation: QuestionValidation{Required: true}},
		{ID: "qty", Question: "How many?", Type: "number"},
		{ID: "tel", Question: "Phone?", Type: "phone"},
		{ID: "note", Question: "Note?", Type: "text"},
	}
	r := func(id, v string) FormResponse { return FormResponse{QuestionID: id, Response: v} }
	tests := []struct {
		name        string
		qs          []Question
		rs          []FormResponse
		code, param string
	}{
		{"all good", qs, []FormResponse{r("email", "a@example.com"), r("qty", "3"), r("tel", "+1 (555) 010-9999"), r("note", "hi")}, "", ""},
		{"only required", qs, []FormResponse{r("email", "a@example.com")}, "", ""},
		{"optional left blank", qs, []FormResponse{r("email", "a@example.com"), r("qty", " ")}, "", ""},
		{"required missing", qs, []FormResponse{r("qty", "3")}, "missing_response", "responses"},
		{"required blank", qs, []FormResponse{r("email", " ")}, "missing_response", "responses[0].response"},
		{"unknown id", qs, []FormResponse{r("email", "a@example.com"), r("age", "3")}, "unknown_question", "responses[1].question_id"},
		{"twice", qs, []FormResponse{r("email", "a@example.com"), r("email", "b@example.com")}, "duplicate_response", "responses[1].question_id"},
		{"bad email", qs, []FormResponse{r("email", "nope")}, "invalid_response", "responses[0].response"},
		{"bad number", qs, []FormResponse{r("email", "a@example.com"), r("qty", "three")}, "invalid_response", "responses[1].response"},
		{"bad phone", qs, []FormResponse{r("email", "a@example.com"), r("tel", "call me")}, "invalid_response", "responses[1].response"},
		{"no questions", nil, nil, "no_questions", "responses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckResponses(tt.qs, tt.rs)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("CheckResponses = %v, want nil", err)
				}
				return
			}
			if e := AsError(err); e.Code != tt.code || e.Param != tt.param || e.Kind != KindInvalid {
				t.Fatalf("CheckResponses = %v, want %s (param %s)", err, tt.code, tt.param)
			}
		})
	}
}

func TestCheckResponsesNumbers(t *testing.T) {
	qs := []Question{{ID: "n", Question: "N?", Type: "number"}}
	for _, v := range []string{"NaN", "Inf", "-Infinity", "1e999"} {
		if err := CheckResponses(qs, []FormResponse{{QuestionID: "n", Response: v}}); ErrorCode(err) != "invalid_response" {
			t.Errorf("%q: %v, want invalid_response", v, err)
		}
	}
}
