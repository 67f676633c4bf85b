package kassa

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Invoice creation limits (docs/api.md section 8).
const (
	DefaultInvoiceTTL = 12 * time.Hour
	MaxInvoiceTTL     = 30 * 24 * time.Hour
	MaxMetadataBytes  = 512
	MaxQuestions      = 5
	MaxQuestionsBytes = 512
	MaxReturnURLLen   = 2048
)

// QuestionTypes are the answer types a merchant may ask of a payor.
var QuestionTypes = []string{"text", "email", "number", "phone"}

// Question is one thing the payment page asks the payor before paying.
type Question struct {
	ID         string             `json:"id"`
	Question   string             `json:"question"`
	Type       string             `json:"type"`
	Validation QuestionValidation `json:"validation"`
}

// QuestionValidation says what makes an answer acceptable.
type QuestionValidation struct {
	Required bool `json:"required"`
}

// InvoiceCreate is a request for a new invoice, decoded but not yet checked.
// Pointer fields are nil when the client left them out.
type InvoiceCreate struct {
	Amount                  Millis
	Description             *string
	CustomerID              *string
	CustomerEmail           *string
	Metadata                []byte // raw JSON object; nil when absent
	ExpiresIn               *time.Duration
	ReceiverOverrideEnable  bool
	ReceiverOverrideAddress *string
	InvoiceTitle            *string
	InvoiceFooter           *string
	PaymentReturnURL        *string
	PaymentReturnURLEnabled *bool
	Questions               []Question
	QuestionsBytes          int     // size of the questions object as sent
	CommerceOrderID         *string // set by commerce checkout only
}

// Validate checks every field against the limits of the invoice API. The first
// problem found is returned as a KindInvalid *Error naming its param.
func (c *InvoiceCreate) Validate() error {
	if c.Amount < MinInvoiceAmount || c.Amount > MaxInvoiceAmount {
		return Invalidf("amount_usd", "amount_out_of_range", "amount_usd must be between 0.01 and 1000000.")
	}
	for _, f := range []struct {
		param string
		v     *string
	}{
		{"description", c.Description}, {"customer_id", c.CustomerID},
		{"invoice_title", c.InvoiceTitle}, {"invoice_footer", c.InvoiceFooter},
	} {
		if f.v != nil {
			if err := checkText(f.param, *f.v, 255, false); err != nil {
				return err
			}
		}
	}
	if c.CustomerEmail != nil {
		if err := CheckEmail("customer_email", *c.CustomerEmail); err != nil {
			return err
		}
	}
	if err := CheckMetadata(c.Metadata); err != nil {
		return err
	}
	if c.ExpiresIn != nil && (*c.ExpiresIn < time.Millisecond || *c.ExpiresIn > MaxInvoiceTTL) {
		return Invalidf("expires_in", "expires_in_out_of_range", "expires_in must be between 1 and 2592000000 milliseconds.")
	}
	if c.ReceiverOverrideEnable && c.ReceiverOverrideAddress == nil {
		return Invalidf("receiver_override_address", "missing_param", "receiver_override_address is required when receiver_override_enable is true.")
	}
	if c.ReceiverOverrideAddress != nil {
		if err := CheckEVMAddress("receiver_override_address", *c.ReceiverOverrideAddress); err != nil {
			return err
		}
	}
	if c.PaymentReturnURL != nil {
		if err := CheckReturnURL("payment_return_url", *c.PaymentReturnURL); err != nil {
			return err
		}
	}
	return CheckQuestions(c.Questions, c.QuestionsBytes)
}

// CheckMetadata checks that raw, when present, is a JSON object of at most 512 bytes.
func CheckMetadata(raw []byte) error {
	if raw == nil {
		return nil
	}
	if len(raw) > MaxMetadataBytes {
		return Invalidf("metadata", "metadata_too_large", "metadata must be at most %d bytes.", MaxMetadataBytes)
	}
	var obj map[string]json.RawMessage
	if !utf8.Valid(raw) || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || json.Unmarshal(raw, &obj) != nil {
		return Invalidf("metadata", "invalid_metadata", "metadata must be a JSON object.")
	}
	return nil
}

// CheckReturnURL checks a payment return URL: absolute HTTPS with a host, at most
// 2048 characters.
func CheckReturnURL(param, s string) error {
	if len(s) > MaxReturnURLLen {
		return Invalidf(param, "url_too_long", "%s must be at most %d characters.", param, MaxReturnURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(s, " \t\r\n") {
		return Invalidf(param, "invalid_url", "%s must be an absolute https URL.", param)
	}
	return nil
}

// CheckQuestions checks the payor questions: at most five, at most 512 bytes as sent,
// each with a unique id, a question text and a known type.
func CheckQuestions(qs []Question, size int) error {
	if size > MaxQuestionsBytes {
		return Invalidf("questions", "questions_too_large", "questions must be at most %d bytes.", MaxQuestionsBytes)
	}
	if len(qs) > MaxQuestions {
		return Invalidf("questions", "too_many_questions", "at most %d questions are allowed.", MaxQuestions)
	}
	seen := map[string]bool{}
	for i, q := range qs {
		param := "questions.questions[" + itoa(i) + "]"
		switch {
		case strings.TrimSpace(q.ID) == "":
			return Invalidf(param+".id", "invalid_question", "each question needs an id.")
		case seen[q.ID]:
			return Invalidf(param+".id", "duplicate_question_id", "question ids must be unique.")
		case strings.TrimSpace(q.Question) == "":
			return Invalidf(param+".question", "invalid_question", "each question needs a question text.")
		case !contains(QuestionTypes, q.Type):
			return Invalidf(param+".type", "invalid_question_type", "type must be one of %s.", strings.Join(QuestionTypes, ", "))
		}
		// Only the 512-byte total bounds the length of one question.
		if err := checkText(param+".question", q.Question, MaxQuestionsBytes, true); err != nil {
			return err
		}
		seen[q.ID] = true
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
