package kassa

import (
	"math"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FormResponse is a payor's answer to one of the invoice's questions.
type FormResponse struct {
	QuestionID string `json:"question_id"`
	Response   string `json:"response"`
}

// maxResponseLen bounds one answer, in characters.
const maxResponseLen = 1000

// CheckResponses validates a payor's answers against the invoice's questions: every
// id must name a question, once; every required question needs a non-blank answer;
// answers must fit their type (email, number, phone) and 1000 characters.
func CheckResponses(qs []Question, rs []FormResponse) error {
	if len(qs) == 0 {
		return Invalidf("responses", "no_questions", "This invoice asks no questions.")
	}
	byID := map[string]Question{}
	for _, q := range qs {
		byID[q.ID] = q
	}
	answered := map[string]bool{}
	for i, r := range rs {
		param := "responses[" + strconv.Itoa(i) + "]"
		q, ok := byID[r.QuestionID]
		switch {
		case !ok:
			return Invalidf(param+".question_id", "unknown_question", "No question has the id %q.", r.QuestionID)
		case answered[r.QuestionID]:
			return Invalidf(param+".question_id", "duplicate_response", "Question %q is answered twice.", r.QuestionID)
		case !utf8.ValidString(r.Response) || utf8.RuneCountInString(r.Response) > maxResponseLen:
			return Invalidf(param+".response", "invalid_response", "An answer must be text of at most %d characters.", maxResponseLen)
		}
		answered[r.QuestionID] = true
		if err := checkAnswer(q, strings.TrimSpace(r.Response), param+".response"); err != nil {
			return err
		}
	}
	for _, q := range qs {
		if q.Validation.Required && !answered[q.ID] {
			return Invalidf("responses", "missing_response", "Question %q is required.", q.ID)
		}
	}
	return nil
}

func checkAnswer(q Question, v, param string) error {
	switch {
	case v == "" && q.Validation.Required:
		return Invalidf(param, "missing_response", "Question %q is required.", q.ID)
	case v == "":
		return nil
	case q.Type == "email":
		if a, err := mail.ParseAddress(v); err != nil || a.Address != v {
			return Invalidf(param, "invalid_response", "The answer to %q must be an email address.", q.ID)
		}
	case q.Type == "number":
		if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Invalidf(param, "invalid_response", "The answer to %q must be a number.", q.ID)
		}
	case q.Type == "phone":
		if strings.Trim(v, "+0123456789 ()-.") != "" || len(v) < 5 {
			return Invalidf(param, "invalid_response", "The answer to %q must be a phone number.", q.ID)
		}
	}
	return nil
}

// RequiredUnanswered reports whether a required question of the invoice has no
// answer yet. While one has, an open invoice gets no payment address: the merchant
// asked before being paid.
func (inv *Invoice) RequiredUnanswered() bool {
	answered := map[string]bool{}
	for _, r := range inv.FormResponses {
		if strings.TrimSpace(r.Response) != "" {
			answered[r.QuestionID] = true
		}
	}
	for _, q := range inv.Questions {
		if q.Validation.Required && !answered[q.ID] {
			return true
		}
	}
	return false
}
