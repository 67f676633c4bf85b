package merchantapi

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// decodeCase is one invoice create body and what decoding it must give.
type decodeCase struct {
	name  string
	body  string
	code  string // expected error code; "" for success
	param string
	check func(t *testing.T, c kassa.InvoiceCreate)
}

func amountIs(want kassa.Millis) func(*testing.T, kassa.InvoiceCreate) {
	return func(t *testing.T, c kassa.InvoiceCreate) {
		t.Helper()
		if c.Amount != want {
			t.Errorf("amount = %d, want %d", c.Amount, want)
		}
	}
}

var decodeCases = []decodeCase{
	{name: "minimal", body: `{"amount_usd": 12.5}`, check: amountIs(12500)},
	{name: "integer amount", body: `{"amount_usd": 12}`, check: amountIs(12000)},
	{name: "rounds half away", body: `{"amount_usd": 0.0105}`, check: amountIs(11)},
	{name: "tenth", body: `{"amount_usd": 0.1}`, check: amountIs(100)},
	{name: "minimum", body: `{"amount_usd": 0.01}`, check: amountIs(10)},
	{name: "maximum", body: `{"amount_usd": 1000000}`, check: amountIs(1_000_000_000)},
	{name: "exponent", body: `{"amount_usd": 1.5e2}`, check: amountIs(150_000)},
	{name: "below minimum", body: `{"amount_usd": 0.0099}`, code: "amount_out_of_range", param: "amount_usd"},
	{name: "above maximum", body: `{"amount_usd": 1000000.001}`, code: "amount_out_of_range", param: "amount_usd"},
	{name: "zero", body: `{"amount_usd": 0}`, code: "amount_out_of_range", param: "amount_usd"},
	{name: "negative", body: `{"amount_usd": -5}`, code: "amount_out_of_range", param: "amount_usd"},
	{name: "huge exponent", body: `{"amount_usd": 1e400}`, code: "amount_out_of_range", param: "amount_usd"},
	{name: "huge digits", body: `{"amount_usd": ` + strings.Repeat("9", 100) + `}`, code: "amount_invalid", param: "amount_usd"},
	{name: "string amount", body: `{"amount_usd": "12"}`, code: "invalid_type", param: "amount_usd"},
	{name: "bool amount", body: `{"amount_usd": true}`, code: "invalid_type", param: "amount_usd"},
	{name: "object amount", body: `{"amount_usd": {}}`, code: "invalid_type", param: "amount_usd"},
	{name: "NaN", body: `{"amount_usd": NaN}`, code: "invalid_json"},
	{name: "Infinity", body: `{"amount_usd": Infinity}`, code: "invalid_json"},
	{name: "missing amount", body: `{"description": "x"}`, code: "missing_param", param: "amount_usd"},
	{name: "null amount", body: `{"amount_usd": null}`, code: "missing_param", param: "amount_usd"},
	{name: "empty body", body: ``, code: "invalid_json"},
	{name: "array body", body: `[{"amount_usd": 1}]`, code: "invalid_json"},
	{name: "string body", body: `"hello"`, code: "invalid_json"},
	{name: "malformed", body: `{"amount_usd": 1,}`, code: "invalid_json"},
	{name: "truncated", body: `{"amount_usd": 1`, code: "invalid_json"},
	{name: "trailing data", body: `{"amount_usd": 1} {}`, code: "invalid_json"},
	{name: "bad utf8", body: "{\"amount_usd\": 1, \"description\": \"\xff\xfe\"}", code: "invalid_json"},
	{name: "duplicate key", body: `{"amount_usd": 1, "amount_usd": 2}`, code: "duplicate_parameter", param: "amount_usd"},
	{name: "unknown field", body: `{"amount_usd": 1, "colour": "red"}`, code: "unknown_parameter", param: "colour"},
	{name: "unknown null field", body: `{"amount_usd": 1, "colour": null}`, code: "unknown_parameter", param: "colour"},
	{name: "commerce order id is not public", body: `{"amount_usd": 1, "commerce_order_id": "x"}`, code: "unknown_parameter", param: "commerce_order_id"},
	{name: "description type", body: `{"amount_usd": 1, "description": 5}`, code: "invalid_type", param: "description"},
	{name: "description too long", body: `{"amount_usd": 1, "description": "` + strings.Repeat("a", 256) + `"}`, code: "description_too_long", param: "description"},
	{name: "description 255 runes", body: `{"amount_usd": 1, "description": "` + strings.Repeat("é", 255) + `"}`},
	{name: "customer_id too long", body: `{"amount_usd": 1, "customer_id": "` + strings.Repeat("c", 256) + `"}`, code: "customer_id_too_long", param: "customer_id"},
	{name: "title too long", body: `{"amount_usd": 1, "invoice_title": "` + strings.Repeat("t", 256) + `"}`, code: "invoice_title_too_long", param: "invoice_title"},
	{name: "footer too long", body: `{"amount_usd": 1, "invoice_footer": "` + strings.Repeat("f", 256) + `"}`, code: "invoice_footer_too_long", param: "invoice_footer"},
	{name: "bad email", body: `{"amount_usd": 1, "customer_email": "nope"}`, code: "invalid_email", param: "customer_email"},
	{name: "http return url", body: `{"amount_usd": 1, "payment_return_url": "http://shop.example/done"}`, code: "invalid_url", param: "payment_return_url"},
	{name: "long return url", body: `{"amount_usd": 1, "payment_return_url": "https://shop.example/` + strings.Repeat("a", 2048) + `"}`, code: "url_too_long", param: "payment_return_url"},
	{name: "return enabled type", body: `{"amount_usd": 1, "payment_return_url_enabled": "yes"}`, code: "invalid_type", param: "payment_return_url_enabled"},
	{name: "override without address", body: `{"amount_usd": 1, "receiver_override_enable": true}`, code: "missing_param", param: "receiver_override_address"},
	{name: "override bad address", body: `{"amount_usd": 1, "receiver_override_enable": true, "receiver_override_address": "0x12"}`, code: "invalid_address", param: "receiver_override_address"},
	{name: "override enable type", body: `{"amount_usd": 1, "receiver_override_enable": 1}`, code: "invalid_type", param: "receiver_override_enable"},
	{name: "expires_in fraction", body: `{"amount_usd": 1, "expires_in": 1.5}`, code: "invalid_type", param: "expires_in"},
	{name: "expires_in exponent", body: `{"amount_usd": 1, "expires_in": 1e3}`, code: "invalid_type", param: "expires_in"},
	{name: "expires_in string", body: `{"amount_usd": 1, "expires_in": "1000"}`, code: "invalid_type", param: "expires_in"},
	{name: "expires_in zero", body: `{"amount_usd": 1, "expires_in": 0}`, code: "expires_in_out_of_range", param: "expires_in"},
	{name: "expires_in negative", body: `{"amount_usd": 1, "expires_in": -1}`, code: "expires_in_out_of_range", param: "expires_in"},
	{name: "expires_in over 30 days", body: `{"amount_usd": 1, "expires_in": 2592000001}`, code: "expires_in_out_of_range", param: "expires_in"},
	{name: "expires_in overflow", body: `{"amount_usd": 1, "expires_in": 99999999999999999999999}`, code: "expires_in_out_of_range", param: "expires_in"},
	{name: "expires_in 30 days", body: `{"amount_usd": 1, "expires_in": 2592000000}`, check: func(t *testing.T, c kassa.InvoiceCreate) {
		t.Helper()
		if c.ExpiresIn == nil || *c.ExpiresIn != 30*24*time.Hour {
			t.Errorf("expires_in = %v", c.ExpiresIn)
		}
	}},
	{name: "metadata array", body: `{"amount_usd": 1, "metadata": [1]}`, code: "invalid_type", param: "metadata"},
	{name: "metadata string", body: `{"amount_usd": 1, "metadata": "{}"}`, code: "invalid_type", param: "metadata"},
	{name: "metadata too large", body: `{"amount_usd": 1, "metadata": {"k": "` + strings.Repeat("x", 510) + `"}}`, code: "metadata_too_large", param: "metadata"},
	{name: "metadata duplicate key", body: `{"amount_usd": 1, "metadata": {"a": 1, "a": 2}}`, code: "duplicate_parameter", param: "metadata.a"},
	{name: "metadata compacted in order", body: `{"amount_usd": 1, "metadata": { "z" : 1 ,  "a" : {"n": [1, 2]} }}`,
		check: func(t *testing.T, c kassa.InvoiceCreate) {
			t.Helper()
			if string(c.Metadata) != `{"z":1,"a":{"n":[1,2]}}` {
				t.Errorf("metadata = %s", c.Metadata)
			}
		}},
	{name: "metadata whitespace does not count", body: `{"amount_usd": 1, "metadata": {"k":     "` + strings.Repeat("x", 500) + `"}}`},
	{name: "questions", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q1", "question": "Email?", "type": "email", "validation": {"required": true}}]}}`,
		check: func(t *testing.T, c kassa.InvoiceCreate) {
			t.Helper()
			if len(c.Questions) != 1 || !c.Questions[0].Validation.Required || c.Questions[0].Type != "email" || c.QuestionsBytes == 0 {
				t.Errorf("questions = %+v (%d bytes)", c.Questions, c.QuestionsBytes)
			}
		}},
	{name: "questions not object", body: `{"amount_usd": 1, "questions": []}`, code: "invalid_type", param: "questions"},
	{name: "questions list missing", body: `{"amount_usd": 1, "questions": {}}`, code: "missing_param", param: "questions.questions"},
	{name: "questions list type", body: `{"amount_usd": 1, "questions": {"questions": {}}}`, code: "invalid_type", param: "questions.questions"},
	{name: "questions unknown", body: `{"amount_usd": 1, "questions": {"questions": [], "x": 1}}`, code: "unknown_parameter", param: "questions.x"},
	{name: "question unknown field", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "Q", "type": "text", "hint": "h"}]}}`, code: "unknown_parameter", param: "questions.questions[0].hint"},
	{name: "question missing type", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "Q"}]}}`, code: "missing_param", param: "questions.questions[0].type"},
	{name: "question bad type", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "Q", "type": "colour"}]}}`, code: "invalid_question_type", param: "questions.questions[0].type"},
	{name: "question id type", body: `{"amount_usd": 1, "questions": {"questions": [{"id": 1, "question": "Q", "type": "text"}]}}`, code: "invalid_type", param: "questions.questions[0].id"},
	{name: "question not object", body: `{"amount_usd": 1, "questions": {"questions": ["q"]}}`, code: "invalid_type", param: "questions.questions[0]"},
	{name: "question required type", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "Q", "type": "text", "validation": {"required": "yes"}}]}}`, code: "invalid_type", param: "questions.questions[0].validation.required"},
	{name: "question duplicate id", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "Q", "type": "text"}, {"id": "q", "question": "R", "type": "text"}]}}`, code: "duplicate_question_id", param: "questions.questions[1].id"},
	{name: "six questions", body: `{"amount_usd": 1, "questions": {"questions": [` + strings.TrimSuffix(strings.Repeat(`{"id":"a","question":"Q","type":"text"},`, 6), ",") + `]}}`, code: "too_many_questions", param: "questions"},
	{name: "questions too large", body: `{"amount_usd": 1, "questions": {"questions": [{"id": "q", "question": "` + strings.Repeat("Q", 500) + `", "type": "text"}]}}`, code: "questions_too_large", param: "questions"},
	{name: "nulls are absent", body: `{"amount_usd": 1, "description": null, "metadata": null, "questions": null, "expires_in": null, "payment_return_url_enabled": null}`,
		check: func(t *testing.T, c kassa.InvoiceCreate) {
			t.Helper()
			if c.Description != nil || c.Metadata != nil || c.Questions != nil || c.ExpiresIn != nil || c.PaymentReturnURLEnabled != nil {
				t.Errorf("nulls decoded as values: %+v", c)
			}
		}},
	{name: "every field", body: fullInvoiceBody, check: func(t *testing.T, c kassa.InvoiceCreate) {
		t.Helper()
		if c.Amount != 49990 || *c.Description != "Order 42" || *c.CustomerID != "cus_1" ||
			*c.CustomerEmail != "payer@example.com" || !c.ReceiverOverrideEnable ||
			*c.InvoiceTitle != "Title" || *c.InvoiceFooter != "Footer" ||
			*c.PaymentReturnURL != "https://shop.example/done" || !*c.PaymentReturnURLEnabled ||
			*c.ExpiresIn != time.Hour || string(c.Metadata) != `{"order":"42","tags":["a","b"]}` || len(c.Questions) != 2 {
			t.Errorf("decoded %+v", c)
		}
	}},
}

// fullInvoiceBody sets every field of the invoice create request.
const fullInvoiceBody = `{
	"amount_usd": 49.99,
	"description": "Order 42",
	"customer_id": "cus_1",
	"metadata": {"order": "42", "tags": ["a", "b"]},
	"expires_in": 3600000,
	"receiver_override_enable": true,
	"receiver_override_address": "0x52908400098527886E0F7030069857D2E4169EE7",
	"invoice_title": "Title",
	"invoice_footer": "Footer",
	"customer_email": "payer@example.com",
	"payment_return_url": "https://shop.example/done",
	"payment_return_url_enabled": true,
	"questions": {"questions": [
		{"id": "email", "question": "Your email?", "type": "email", "validation": {"required": true}},
		{"id": "size", "question": "Shirt size?", "type": "text", "validation": {"required": false}}
	]}
}`

func TestDecodeInvoiceCreate(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := decodeInvoiceCreate([]byte(tc.body))
			if tc.code == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if tc.check != nil {
					tc.check(t, c)
				}
				return
			}
			assertInvalid(t, err, tc.code, tc.param)
		})
	}
}

// assertInvalid checks that err is a KindInvalid *kassa.Error with code and param.
func assertInvalid(t *testing.T, err error, code, param string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	e, ok := err.(*kassa.Error)
	if !ok {
		t.Fatalf("error %T %v is not a *kassa.Error", err, err)
	}
	if e.Kind != kassa.KindInvalid || e.Code != code || e.Param != param {
		t.Errorf("error = %s/%s param %q, want invalid/%s param %q", e.Kind, e.Code, e.Param, code, param)
	}
}

func FuzzDecodeInvoiceCreate(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.body))
	}
	f.Add([]byte(`{"amount_usd": 1e-400}`))
	f.Add([]byte(`{"amount_usd": -0}`))
	f.Add([]byte(`{"amount_usd": 0.01, "metadata": {"a": {"b": {"c": [[[[]]]]}}}}`))
	f.Add([]byte(`{"amount_usd": 1, "description": "\u0000"}`))
	f.Add([]byte(`{"amount_usd": 1, "description": "\ud800"}`))
	f.Add([]byte(`{"\u0061mount_usd": 1}`))
	f.Add([]byte(`   {"amount_usd": 1}   `))
	f.Add([]byte("\xef\xbb\xbf{\"amount_usd\": 1}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := decodeInvoiceCreate(body)
		if err != nil {
			e, ok := err.(*kassa.Error)
			if !ok || e.Kind != kassa.KindInvalid || e.Code == "" || e.Message == "" {
				t.Fatalf("error %T %v is not a KindInvalid *kassa.Error", err, err)
			}
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("decoded request does not validate: %v", verr)
		}
		if c.Metadata != nil && len(c.Metadata) > kassa.MaxMetadataBytes {
			t.Fatalf("metadata of %d bytes accepted", len(c.Metadata))
		}
	})
}
