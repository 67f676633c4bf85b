package merchantapi

import (
	"strconv"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// decodeInvoiceCreate reads an invoice create request (docs/api.md 2.2) strictly and
// validates it. Every failure is a *kassa.Error of KindInvalid naming its param:
// invalid_json for bad UTF-8, malformed JSON or a non-object body; unknown_parameter
// and duplicate_parameter; invalid_type for wrong JSON types (amount_usd must be a
// JSON number token, read exactly by kassa.ParseUSD); missing_param for a missing
// or null amount_usd; and the codes of kassa.InvoiceCreate.Validate.
func decodeInvoiceCreate(body []byte) (kassa.InvoiceCreate, error) {
	var c kassa.InvoiceCreate
	strs := map[string]**string{
		"description":               &c.Description,
		"customer_id":               &c.CustomerID,
		"customer_email":            &c.CustomerEmail,
		"receiver_override_address": &c.ReceiverOverrideAddress,
		"invoice_title":             &c.InvoiceTitle,
		"invoice_footer":            &c.InvoiceFooter,
		"payment_return_url":        &c.PaymentReturnURL,
	}
	hasAmount := false
	err := httpx.DecodeFields(body, func(f httpx.Field) (known bool, err error) {
		if dst, ok := strs[f.Key]; ok {
			*dst, err = httpx.OptString(f)
			return true, err
		}
		switch f.Key {
		case "amount_usd":
			if f.Null() {
				return true, httpx.ErrMissing("amount_usd")
			}
			if !httpx.IsNumber(f.Raw) {
				return true, httpx.ErrInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			c.Amount, err = kassa.ParseUSD(string(f.Raw), "amount_usd")
			hasAmount = err == nil
		case "expires_in":
			err = decodeExpiresIn(f, &c)
		case "metadata":
			if !f.Null() {
				c.Metadata, err = httpx.CompactObject(f)
			}
		case "questions":
			err = decodeQuestions(f, &c)
		case "receiver_override_enable":
			var b *bool
			if b, err = httpx.OptBool(f); b != nil {
				c.ReceiverOverrideEnable = *b
			}
		case "payment_return_url_enabled":
			c.PaymentReturnURLEnabled, err = httpx.OptBool(f)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return c, err
	}
	if !hasAmount {
		return c, httpx.ErrMissing("amount_usd")
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// decodeExpiresIn reads expires_in: an integer number of milliseconds.
func decodeExpiresIn(f httpx.Field, c *kassa.InvoiceCreate) error {
	if f.Null() {
		return nil
	}
	ms, err := httpx.Integer(f, "expires_in_out_of_range")
	if err != nil {
		return err
	}
	if ms < 1 || ms > kassa.MaxInvoiceTTL.Milliseconds() {
		return httpx.ErrInvalid("expires_in", "expires_in_out_of_range",
			"expires_in must be between 1 and "+strconv.FormatInt(kassa.MaxInvoiceTTL.Milliseconds(), 10)+" milliseconds.")
	}
	d := time.Duration(ms) * time.Millisecond
	c.ExpiresIn = &d
	return nil
}

// decodeQuestions reads questions: {"questions": [{id, question, type,
// validation: {required}}]}, strictly, and records its compacted size.
func decodeQuestions(f httpx.Field, c *kassa.InvoiceCreate) error {
	if f.Null() {
		return nil
	}
	compact, err := httpx.CompactObject(f)
	if err != nil {
		return err
	}
	c.QuestionsBytes = len(compact)
	if c.QuestionsBytes > kassa.MaxQuestionsBytes {
		return httpx.ErrInvalid("questions", "questions_too_large",
			"questions must be at most "+strconv.Itoa(kassa.MaxQuestionsBytes)+" bytes.")
	}
	var list *httpx.Field
	err = httpx.DecodeObject(f, func(g httpx.Field) (bool, error) {
		list = &g
		return g.Key == "questions", nil
	})
	if err != nil {
		return err
	}
	if list == nil {
		return httpx.ErrMissing("questions.questions")
	}
	items, err := httpx.Elements(*list)
	if err != nil {
		return err
	}
	if len(items) > kassa.MaxQuestions {
		return httpx.ErrInvalid("questions", "too_many_questions",
			"At most "+strconv.Itoa(kassa.MaxQuestions)+" questions are allowed.")
	}
	qs := make([]kassa.Question, 0, len(items))
	for _, item := range items {
		q, err := decodeQuestion(item)
		if err != nil {
			return err
		}
		qs = append(qs, q)
	}
	if len(qs) > 0 {
		c.Questions = qs
	}
	return nil
}

// decodeQuestion reads one question object.
func decodeQuestion(f httpx.Field) (kassa.Question, error) {
	var q kassa.Question
	have := map[string]bool{}
	err := httpx.DecodeObject(f, func(g httpx.Field) (known bool, err error) {
		switch g.Key {
		case "id":
			q.ID, err = httpx.ReqString(g)
		case "question":
			q.Question, err = httpx.ReqString(g)
		case "type":
			q.Type, err = httpx.ReqString(g)
		case "validation":
			err = decodeValidation(g, &q.Validation)
		default:
			return false, nil
		}
		have[g.Key] = true
		return true, err
	})
	if err != nil {
		return q, err
	}
	for _, k := range []string{"id", "question", "type"} {
		if !have[k] {
			return q, httpx.ErrMissing(httpx.JoinPath(f.Path, k))
		}
	}
	return q, nil
}

// decodeValidation reads a question's validation object: {required: boolean}.
func decodeValidation(f httpx.Field, v *kassa.QuestionValidation) error {
	if f.Null() {
		return nil
	}
	return httpx.DecodeObject(f, func(g httpx.Field) (bool, error) {
		if g.Key != "required" {
			return false, nil
		}
		b, err := httpx.OptBool(g)
		v.Required = b != nil && *b
		return true, err
	})
}
