package kassa

import (
	"strings"
	"testing"
)

func TestCheckQuestions(t *testing.T) {
	with := func(q Question) []Question { return []Question{q} }
	tests := []struct {
		name  string
		qs    []Question
		size  int
		param string
		code  string
	}{
		{"none", nil, 0, "", ""},
		{"empty list", []Question{}, 15, "", ""},
		{"five", questions(5), 512, "", ""},
		{"every type", questions(len(QuestionTypes)), 300, "", ""},
		{"required", with(Question{ID: "a", Question: "Name?", Type: "text", Validation: QuestionValidation{Required: true}}), 60, "", ""},
		{"six", questions(6), 300, "questions", "too_many_questions"},
		{"513 bytes", questions(1), 513, "questions", "questions_too_large"},
		{"size before count", questions(6), 513, "questions", "questions_too_large"},
		{"empty id", with(Question{ID: "", Question: "Q?", Type: "text"}), 40, "questions.questions[0].id", "invalid_question"},
		{"blank id", with(Question{ID: "  ", Question: "Q?", Type: "text"}), 40, "questions.questions[0].id", "invalid_question"},
		{"long id within 512 bytes", with(Question{ID: strings.Repeat("i", 300), Question: "Q?", Type: "text"}), 400, "", ""},
		{"blank id", with(Question{ID: " ", Question: "Q?", Type: "text"}), 100, "questions.questions[0].id", "invalid_question"},
		{"duplicate id", append(questions(2), Question{ID: "q1", Question: "Again?", Type: "text"}), 200, "questions.questions[2].id", "duplicate_question_id"},
		{"empty question", with(Question{ID: "a", Question: "", Type: "text"}), 40, "questions.questions[0].question", "invalid_question"},
		{"blank question", with(Question{ID: "a", Question: " \n", Type: "text"}), 40, "questions.questions[0].question", "invalid_question"},
		{"question 255", with(Question{ID: "a", Question: strings.Repeat("é", 255), Type: "text"}), 0, "", ""},
		{"question 300 within 512 bytes", with(Question{ID: "a", Question: strings.Repeat("q", 300), Type: "text"}), 400, "", ""},
		{"question control", with(Question{ID: "a", Question: "a\x00", Type: "text"}), 40, "questions.questions[0].question", "invalid_question"},
		{"unknown type", with(Question{ID: "a", Question: "Q?", Type: "date"}), 40, "questions.questions[0].type", "invalid_question_type"},
		{"empty type", with(Question{ID: "a", Question: "Q?", Type: ""}), 40, "questions.questions[0].type", "invalid_question_type"},
		{"type case", with(Question{ID: "a", Question: "Q?", Type: "Email"}), 40, "questions.questions[0].type", "invalid_question_type"},
		{"later question", append(questions(3), Question{ID: "z", Question: "Q?", Type: "bogus"}), 200, "questions.questions[3].type", "invalid_question_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckQuestions(tt.qs, tt.size)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("CheckQuestions = %v", err)
				}
				return
			}
			wantCode(t, err, KindInvalid, tt.code, tt.param)
		})
	}
	for i, want := range map[int]string{0: "0", 9: "9", 10: "10", 123: "123"} {
		if got := itoa(i); got != want {
			t.Errorf("itoa(%d) = %q", i, got)
		}
	}
}

func TestCheckEmail(t *testing.T) {
	for _, s := range []string{
		"a@b.co", "A@B.CO", "first.last+tag@mail.example.com", "x_y-z@ex-ample.io",
		strings.Repeat("a", 243) + "@example.com", // 255
	} {
		if err := CheckEmail("email", s); err != nil {
			t.Errorf("CheckEmail(%q) = %v", s, err)
		}
	}
	for _, s := range []string{
		"", "a", "@b.co", "a@", "a@b", "a@@b.co", "a b@c.co", "a@b.co ", " a@b.co", "a@b.co\n",
		"Name <a@b.co>", "<a@b.co>", "a@b.co, c@d.co", "a@b..co",
		strings.Repeat("a", 244) + "@example.com", // 256
	} {
		wantCode(t, CheckEmail("customer_email", s), KindInvalid, "invalid_email", "customer_email")
	}
}

func TestMerchantCreateValidate(t *testing.T) {
	tests := []struct {
		name  string
		c     MerchantCreate
		param string
		code  string
	}{
		{"valid", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: "12345678"}, "", ""},
		{"72 byte password", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: strings.Repeat("p", 72)}, "", ""},
		{"36 two-byte runes", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: strings.Repeat("é", 36)}, "", ""},
		{"name 255", MerchantCreate{Name: strings.Repeat("n", 255), Email: "o@shop.example", Password: "12345678"}, "", ""},
		{"no name", MerchantCreate{Email: "o@shop.example", Password: "12345678"}, "name", "invalid_name"},
		{"blank name", MerchantCreate{Name: "  ", Email: "o@shop.example", Password: "12345678"}, "name", "invalid_name"},
		{"name 256", MerchantCreate{Name: strings.Repeat("n", 256), Email: "o@shop.example", Password: "12345678"}, "name", "name_too_long"},
		{"bad email", MerchantCreate{Name: "Shop", Email: "shop", Password: "12345678"}, "email", "invalid_email"},
		{"short password", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: "1234567"}, "password", "invalid_password"},
		{"73 byte password", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: strings.Repeat("p", 73)}, "password", "invalid_password"},
		// bcrypt refuses more than 72 bytes; 40 runes of two bytes are 80 bytes.
		{"80 byte password", MerchantCreate{Name: "Shop", Email: "o@shop.example", Password: strings.Repeat("é", 40)}, "password", "invalid_password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
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

func TestMerchantUpdateValidate(t *testing.T) {
	good := &Settlement{Network: "bsc", TokenSymbol: "USDT", Address: goodAddress}
	with := func(s Settlement) map[Environment]*Settlement { return map[Environment]*Settlement{Devnet: &s} }
	tests := []struct {
		name  string
		u     MerchantUpdate
		param string
		code  string
	}{
		{"empty", MerchantUpdate{}, "", ""},
		{"all fields", MerchantUpdate{CompanyName: ptr("Shop Ltd"), DefaultReturnURL: ptr("https://shop.example/"),
			Settlement:                  map[Environment]*Settlement{Devnet: good, Mainnet: good},
			UnderpaymentToleranceMillis: ptr(Millis(50))}, "", ""},
		{"clear return url", MerchantUpdate{DefaultReturnURL: ptr("")}, "", ""},
		{"clear settlement", MerchantUpdate{Settlement: map[Environment]*Settlement{Mainnet: nil}}, "", ""},
		{"lower-case address", MerchantUpdate{Settlement: with(Settlement{Network: "ethereum", TokenSymbol: "USDC.e", Address: strings.ToLower(goodAddress)})}, "", ""},
		{"tolerance 0", MerchantUpdate{UnderpaymentToleranceMillis: ptr(Millis(0))}, "", ""},
		{"tolerance max", MerchantUpdate{UnderpaymentToleranceMillis: ptr(MaxInvoiceAmount)}, "", ""},
		{"empty company", MerchantUpdate{CompanyName: ptr("")}, "company_name", "invalid_company_name"},
		{"company 256", MerchantUpdate{CompanyName: ptr(strings.Repeat("c", 256))}, "company_name", "company_name_too_long"},
		{"http return url", MerchantUpdate{DefaultReturnURL: ptr("http://shop.example/")}, "default_return_url", "invalid_url"},
		{"unknown environment", MerchantUpdate{Settlement: map[Environment]*Settlement{"testnet": good}}, "settlement", "invalid_environment"},
		{"bad network", MerchantUpdate{Settlement: with(Settlement{Network: "BSC", TokenSymbol: "USDT", Address: goodAddress})}, "settlement.devnet.network", "invalid_network"},
		{"empty network", MerchantUpdate{Settlement: with(Settlement{TokenSymbol: "USDT", Address: goodAddress})}, "settlement.devnet.network", "invalid_network"},
		{"bad token", MerchantUpdate{Settlement: with(Settlement{Network: "bsc", TokenSymbol: "US DT", Address: goodAddress})}, "settlement.devnet.token_symbol", "invalid_token_symbol"},
		{"empty token", MerchantUpdate{Settlement: with(Settlement{Network: "bsc", Address: goodAddress})}, "settlement.devnet.token_symbol", "invalid_token_symbol"},
		{"bad address", MerchantUpdate{Settlement: with(Settlement{Network: "bsc", TokenSymbol: "USDT", Address: "0x12"})}, "settlement.devnet.address", "invalid_address"},
		{"bad checksum", MerchantUpdate{Settlement: map[Environment]*Settlement{Mainnet: {Network: "bsc", TokenSymbol: "USDT",
			Address: strings.Replace(goodAddress, "fB", "Fb", 1)}}}, "settlement.mainnet.address", "invalid_address_checksum"},
		{"tolerance negative", MerchantUpdate{UnderpaymentToleranceMillis: ptr(Millis(-1))}, "underpayment_tolerance_usd_millis", "invalid_tolerance"},
		{"tolerance above max", MerchantUpdate{UnderpaymentToleranceMillis: ptr(MaxInvoiceAmount + 1)}, "underpayment_tolerance_usd_millis", "invalid_tolerance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.u.Validate()
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
