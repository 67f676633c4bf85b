package kassa

import (
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

const goodAddress = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"

func TestInvoiceCreateValidate(t *testing.T) {
	long := func(n int) *string { return ptr(strings.Repeat("é", n)) }
	type change func(*InvoiceCreate)
	tests := []struct {
		name   string
		change change
		param  string
		code   string
	}{
		{"minimal", func(*InvoiceCreate) {}, "", ""},
		{"everything", func(c *InvoiceCreate) {
			c.Description, c.CustomerID, c.CustomerEmail = ptr("Order 42\nthanks"), ptr("cus_1"), ptr("payer@example.com")
			c.Metadata, c.ExpiresIn = []byte(`{"order":42,"tags":["a"]}`), ptr(time.Hour)
			c.ReceiverOverrideEnable, c.ReceiverOverrideAddress = true, ptr(goodAddress)
			c.InvoiceTitle, c.InvoiceFooter = ptr("Shop"), ptr("Thanks")
			c.PaymentReturnURL, c.PaymentReturnURLEnabled = ptr("https://shop.example/return?x=1"), ptr(true)
			c.Questions, c.QuestionsBytes = []Question{{ID: "q1", Question: "Your email?", Type: "email"}}, 80
		}, "", ""},
		{"amount minimum", func(c *InvoiceCreate) { c.Amount = MinInvoiceAmount }, "", ""},
		{"amount maximum", func(c *InvoiceCreate) { c.Amount = MaxInvoiceAmount }, "", ""},
		{"amount below", func(c *InvoiceCreate) { c.Amount = 9 }, "amount_usd", "amount_out_of_range"},
		{"amount zero", func(c *InvoiceCreate) { c.Amount = 0 }, "amount_usd", "amount_out_of_range"},
		{"amount negative", func(c *InvoiceCreate) { c.Amount = -1000 }, "amount_usd", "amount_out_of_range"},
		{"amount above", func(c *InvoiceCreate) { c.Amount = MaxInvoiceAmount + 1 }, "amount_usd", "amount_out_of_range"},
		{"description 255", func(c *InvoiceCreate) { c.Description = long(255) }, "", ""},
		{"description empty", func(c *InvoiceCreate) { c.Description = ptr("") }, "", ""},
		{"description 256", func(c *InvoiceCreate) { c.Description = long(256) }, "description", "description_too_long"},
		{"description control", func(c *InvoiceCreate) { c.Description = ptr("a\x1bb") }, "description", "invalid_description"},
		{"description bad utf-8", func(c *InvoiceCreate) { c.Description = ptr("a\xffb") }, "description", "invalid_description"},
		{"customer_id 255", func(c *InvoiceCreate) { c.CustomerID = long(255) }, "", ""},
		{"customer_id 256", func(c *InvoiceCreate) { c.CustomerID = long(256) }, "customer_id", "customer_id_too_long"},
		{"customer_id control", func(c *InvoiceCreate) { c.CustomerID = ptr("\x00") }, "customer_id", "invalid_customer_id"},
		{"invoice_title 255", func(c *InvoiceCreate) { c.InvoiceTitle = long(255) }, "", ""},
		{"invoice_title 256", func(c *InvoiceCreate) { c.InvoiceTitle = long(256) }, "invoice_title", "invoice_title_too_long"},
		{"invoice_title delete", func(c *InvoiceCreate) { c.InvoiceTitle = ptr("\x7f") }, "invoice_title", "invalid_invoice_title"},
		{"invoice_footer 255", func(c *InvoiceCreate) { c.InvoiceFooter = long(255) }, "", ""},
		{"invoice_footer 256", func(c *InvoiceCreate) { c.InvoiceFooter = long(256) }, "invoice_footer", "invoice_footer_too_long"},
		{"customer_email bad", func(c *InvoiceCreate) { c.CustomerEmail = ptr("nope") }, "customer_email", "invalid_email"},
		{"customer_email empty", func(c *InvoiceCreate) { c.CustomerEmail = ptr("") }, "customer_email", "invalid_email"},
		{"customer_email 256", func(c *InvoiceCreate) { c.CustomerEmail = ptr(strings.Repeat("a", 244) + "@example.com") }, "customer_email", "invalid_email"},
		{"metadata 512", func(c *InvoiceCreate) { c.Metadata = []byte(`{"k":"` + strings.Repeat("x", 504) + `"}`) }, "", ""},
		{"metadata 513", func(c *InvoiceCreate) { c.Metadata = []byte(`{"k":"` + strings.Repeat("x", 505) + `"}`) }, "metadata", "metadata_too_large"},
		{"metadata array", func(c *InvoiceCreate) { c.Metadata = []byte(`[]`) }, "metadata", "invalid_metadata"},
		{"expires_in 1 ms", func(c *InvoiceCreate) { c.ExpiresIn = ptr(time.Millisecond) }, "", ""},
		{"expires_in 30 days", func(c *InvoiceCreate) { c.ExpiresIn = ptr(2592000000 * time.Millisecond) }, "", ""},
		{"expires_in 0", func(c *InvoiceCreate) { c.ExpiresIn = ptr(time.Duration(0)) }, "expires_in", "expires_in_out_of_range"},
		{"expires_in below 1 ms", func(c *InvoiceCreate) { c.ExpiresIn = ptr(time.Millisecond - 1) }, "expires_in", "expires_in_out_of_range"},
		{"expires_in negative", func(c *InvoiceCreate) { c.ExpiresIn = ptr(-time.Hour) }, "expires_in", "expires_in_out_of_range"},
		{"expires_in over 30 days", func(c *InvoiceCreate) { c.ExpiresIn = ptr(2592000001 * time.Millisecond) }, "expires_in", "expires_in_out_of_range"},
		{"override without address", func(c *InvoiceCreate) { c.ReceiverOverrideEnable = true }, "receiver_override_address", "missing_param"},
		{"override bad address", func(c *InvoiceCreate) {
			c.ReceiverOverrideEnable, c.ReceiverOverrideAddress = true, ptr("0x123")
		}, "receiver_override_address", "invalid_address"},
		{"override empty address", func(c *InvoiceCreate) {
			c.ReceiverOverrideEnable, c.ReceiverOverrideAddress = true, ptr("")
		}, "receiver_override_address", "invalid_address"},
		{"override bad checksum", func(c *InvoiceCreate) {
			c.ReceiverOverrideEnable, c.ReceiverOverrideAddress = true, ptr(strings.Replace(goodAddress, "fB", "FB", 1))
		}, "receiver_override_address", "invalid_address_checksum"},
		{"address checked even when disabled", func(c *InvoiceCreate) { c.ReceiverOverrideAddress = ptr("nope") }, "receiver_override_address", "invalid_address"},
		{"return url http", func(c *InvoiceCreate) { c.PaymentReturnURL = ptr("http://shop.example/") }, "payment_return_url", "invalid_url"},
		{"return url 2049", func(c *InvoiceCreate) {
			c.PaymentReturnURL = ptr("https://shop.example/" + strings.Repeat("a", 2049-21))
		}, "payment_return_url", "url_too_long"},
		{"questions too many", func(c *InvoiceCreate) { c.Questions = questions(6) }, "questions", "too_many_questions"},
		{"questions too large", func(c *InvoiceCreate) { c.Questions, c.QuestionsBytes = questions(1), 513 }, "questions", "questions_too_large"},
		{"first error wins", func(c *InvoiceCreate) { c.Amount, c.Description = 0, long(300) }, "amount_usd", "amount_out_of_range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := InvoiceCreate{Amount: 12340}
			tt.change(&c)
			err := c.Validate()
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			wantCode(t, err, KindInvalid, tt.code, tt.param)
		})
	}
}

// questions returns n valid, distinct questions.
func questions(n int) []Question {
	qs := make([]Question, n)
	for i := range qs {
		qs[i] = Question{ID: "q" + itoa(i), Question: "Question?", Type: QuestionTypes[i%len(QuestionTypes)]}
	}
	return qs
}

func TestCheckMetadata(t *testing.T) {
	tests := []struct {
		raw  string
		code string
	}{
		{`{}`, ""},
		{`{"a":1,"b":{"c":[1,2,"x"]},"d":null}`, ""},
		{" \n{\"a\": 1}\n", ""},
		{`{"k":"` + strings.Repeat("x", 504) + `"}`, ""},
		{`{"k":"` + strings.Repeat("x", 505) + `"}`, "metadata_too_large"},
		{`{"k":"` + strings.Repeat("é", 300) + `"}`, "metadata_too_large"}, // bytes, not characters
		{`[]`, "invalid_metadata"},
		{`[{"a":1}]`, "invalid_metadata"},
		{`null`, "invalid_metadata"},
		{`"x"`, "invalid_metadata"},
		{`1`, "invalid_metadata"},
		{`true`, "invalid_metadata"},
		{``, "invalid_metadata"},
		{`{`, "invalid_metadata"},
		{`{"a":}`, "invalid_metadata"},
		{`{"a":1}{"b":2}`, "invalid_metadata"},
		{`{"a":1} x`, "invalid_metadata"},
	}
	for _, tt := range tests {
		err := CheckMetadata([]byte(tt.raw))
		if tt.code == "" {
			if err != nil {
				t.Errorf("CheckMetadata(%q) = %v", tt.raw, err)
			}
			continue
		}
		t.Run(tt.raw, func(t *testing.T) { wantCode(t, err, KindInvalid, tt.code, "metadata") })
	}
	if err := CheckMetadata(nil); err != nil {
		t.Errorf("CheckMetadata(nil) = %v", err)
	}
}

func TestCheckReturnURL(t *testing.T) {
	const param = "default_return_url"
	tests := []struct {
		url  string
		code string
	}{
		{"https://shop.example", ""},
		{"https://shop.example/done?order=1#top", ""},
		{"https://shop.example:8443/x", ""},
		{"HTTPS://shop.example/", ""},
		{"https://shop.example/" + strings.Repeat("a", 2048-21), ""},
		{"https://shop.example/" + strings.Repeat("a", 2049-21), "url_too_long"},
		{"", "invalid_url"},
		{"http://shop.example", "invalid_url"},
		{"ftp://shop.example", "invalid_url"},
		{"javascript:alert(1)", "invalid_url"},
		{"//shop.example/x", "invalid_url"},
		{"/return", "invalid_url"},
		{"shop.example", "invalid_url"},
		{"https://", "invalid_url"},
		{"https:///path", "invalid_url"},
		{"https:shop.example", "invalid_url"},
		{"https://user:pw@shop.example/", "invalid_url"},
		{"https://shop.example/a b", "invalid_url"},
		{"https://shop.example/\n", "invalid_url"},
		{" https://shop.example/", "invalid_url"},
		{"https://shop.example/%zz", "invalid_url"},
	}
	for _, tt := range tests {
		err := CheckReturnURL(param, tt.url)
		if tt.code == "" {
			if err != nil {
				t.Errorf("CheckReturnURL(%q) = %v", tt.url, err)
			}
			continue
		}
		t.Run(tt.url, func(t *testing.T) { wantCode(t, err, KindInvalid, tt.code, param) })
	}
}
