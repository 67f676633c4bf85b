package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"kassa"
)

// decodeInvoiceCreate reads an invoice create request (interface 2.2) strictly and
// validates it. Every failure is a *kassa.Error of KindInvalid naming its param:
// invalid_json for bad UTF-8, malformed JSON or a non-object body; unknown_parameter
// and duplicate_parameter; invalid_type for wrong JSON types (amount_usd must be a
// JSON number token, read exactly by kassa.ParseUSD); missing_param for a missing
// or null amount_usd; and the codes of kassa.InvoiceCreate.Validate.
func decodeInvoiceCreate(body []byte) (kassa.InvoiceCreate, error) {
	var c kassa.InvoiceCreate
	fields, err := parseObject(body, "")
	if err != nil {
		return c, err
	}
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
	for _, f := range fields {
		if dst, ok := strs[f.key]; ok {
			if *dst, err = optString(f); err != nil {
				return c, err
			}
			continue
		}
		switch f.key {
		case "amount_usd":
			if f.null() {
				return c, errMissing("amount_usd")
			}
			if !isNumber(f.raw) {
				return c, errInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			if c.Amount, err = kassa.ParseUSD(string(f.raw), "amount_usd"); err != nil {
				return c, err
			}
			hasAmount = true
		case "expires_in":
			err = decodeExpiresIn(f, &c)
		case "metadata":
			if !f.null() {
				c.Metadata, err = compactObject(f)
			}
		case "questions":
			err = decodeQuestions(f, &c)
		case "receiver_override_enable":
			var b *bool
			if b, err = optBool(f); b != nil {
				c.ReceiverOverrideEnable = *b
			}
		case "payment_return_url_enabled":
			c.PaymentReturnURLEnabled, err = optBool(f)
		default:
			err = errUnknownParam(f.key)
		}
		if err != nil {
			return c, err
		}
	}
	if !hasAmount {
		return c, errMissing("amount_usd")
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// decodeExpiresIn reads expires_in: an integer number of milliseconds.
func decodeExpiresIn(f field, c *kassa.InvoiceCreate) error {
	if f.null() {
		return nil
	}
	ms, err := integer(f, "expires_in_out_of_range")
	if err != nil {
		return err
	}
	if ms < 1 || ms > kassa.MaxInvoiceTTL.Milliseconds() {
		return errInvalid("expires_in", "expires_in_out_of_range",
			"expires_in must be between 1 and "+strconv.FormatInt(kassa.MaxInvoiceTTL.Milliseconds(), 10)+" milliseconds.")
	}
	d := time.Duration(ms) * time.Millisecond
	c.ExpiresIn = &d
	return nil
}

// decodeQuestions reads questions: {"questions": [{id, question, type,
// validation: {required}}]}, strictly, and records its compacted size.
func decodeQuestions(f field, c *kassa.InvoiceCreate) error {
	if f.null() {
		return nil
	}
	compact, err := compactObject(f)
	if err != nil {
		return err
	}
	c.QuestionsBytes = len(compact)
	if c.QuestionsBytes > kassa.MaxQuestionsBytes {
		return errInvalid("questions", "questions_too_large",
			"questions must be at most "+strconv.Itoa(kassa.MaxQuestionsBytes)+" bytes.")
	}
	outer, _ := parseObject(f.raw, f.path)
	var list *field
	for i := range outer {
		if outer[i].key != "questions" {
			return errUnknownParam(outer[i].path)
		}
		list = &outer[i]
	}
	if list == nil {
		return errMissing("questions.questions")
	}
	var items []json.RawMessage
	if len(list.raw) == 0 || list.raw[0] != '[' || json.Unmarshal(list.raw, &items) != nil {
		return errInvalidType(list.path, "an array")
	}
	if len(items) > kassa.MaxQuestions {
		return errInvalid("questions", "too_many_questions",
			"At most "+strconv.Itoa(kassa.MaxQuestions)+" questions are allowed.")
	}
	qs := make([]kassa.Question, 0, len(items))
	for i, raw := range items {
		q, err := decodeQuestion(field{path: list.path + "[" + strconv.Itoa(i) + "]", raw: bytes.TrimSpace(raw)})
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
func decodeQuestion(f field) (kassa.Question, error) {
	var q kassa.Question
	fields, err := parseObject(f.raw, f.path)
	if err != nil {
		return q, err
	}
	have := map[string]bool{}
	for _, g := range fields {
		switch g.key {
		case "id":
			q.ID, err = reqString(g)
		case "question":
			q.Question, err = reqString(g)
		case "type":
			q.Type, err = reqString(g)
		case "validation":
			err = decodeValidation(g, &q.Validation)
		default:
			err = errUnknownParam(g.path)
		}
		if err != nil {
			return q, err
		}
		have[g.key] = true
	}
	for _, k := range []string{"id", "question", "type"} {
		if !have[k] {
			return q, errMissing(joinPath(f.path, k))
		}
	}
	return q, nil
}

// decodeValidation reads a question's validation object: {required: boolean}.
func decodeValidation(f field, v *kassa.QuestionValidation) error {
	if f.null() {
		return nil
	}
	fields, err := parseObject(f.raw, f.path)
	if err != nil {
		return err
	}
	for _, g := range fields {
		if g.key != "required" {
			return errUnknownParam(g.path)
		}
		b, err := optBool(g)
		if err != nil {
			return err
		}
		v.Required = b != nil && *b
	}
	return nil
}
