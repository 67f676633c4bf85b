package invoicejson

import (
	"strconv"

	"github.com/kassapay/kassa"
)

// Marshal renders the canonical invoice object without expansions (docs/api.md
// 2.4): snake_case, amounts in usd_millis with three-decimal twins, every nullable
// field present.
func Marshal(inv *kassa.Invoice) ([]byte, error) {
	b, err := Append(make([]byte, 0, size(inv)), inv)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Append appends the canonical invoice object, byte for byte what Marshal returns,
// to b. The only error is metadata that is not JSON (the store never holds such);
// b is then returned as it was.
func Append(b []byte, inv *kassa.Invoice) ([]byte, error) {
	out, err := appendFields(b, inv)
	if err != nil {
		return b, err
	}
	return append(out, '}'), nil
}

// appendFields appends the canonical object without its closing brace, so that
// expansions can follow.
func appendFields(b []byte, inv *kassa.Invoice) ([]byte, error) {
	b = append(b, `{"object":"invoice","id":`...)
	b = AppendString(b, inv.ID)
	b = append(b, `,"merchant_id":`...)
	b = strconv.AppendInt(b, inv.MerchantID, 10)
	b = append(b, `,"status":`...)
	b = AppendString(b, string(inv.Status))
	b = append(b, `,"invoice_type":`...)
	b = AppendString(b, inv.Type)
	b = append(b, `,"currency":`...)
	b = AppendString(b, inv.Currency)
	b = appendAmounts(b, inv, true)
	b = append(b, `,"customer_id":`...)
	b = appendOptString(b, inv.CustomerID)
	b = append(b, `,"payer_wallet_address":`...)
	b = appendOptString(b, inv.PayerWalletAddress)
	b = append(b, `,"payer_wallet_network":`...)
	b = appendOptString(b, inv.PayerWalletNetwork)
	b = append(b, `,"commerce_order_id":`...)
	b = appendOptString(b, inv.CommerceOrderID)
	b = append(b, `,"environment":`...)
	b = AppendString(b, string(inv.Environment))
	b = append(b, `,"expires_at":`...)
	b = appendTime(b, inv.ExpiresAt)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, inv.CreatedAt)
	b = append(b, `,"paid_at":`...)
	b = appendOptTime(b, inv.PaidAt)
	b = append(b, `,"last_payment_at":`...)
	b = appendOptTime(b, inv.LastPaymentAt)
	b = append(b, `,"canceled_at":`...)
	b = appendOptTime(b, inv.CanceledAt)
	b = append(b, `,"description":`...)
	b = appendOptString(b, inv.Description)
	b = append(b, `,"customer_email":`...)
	b = appendOptString(b, inv.CustomerEmail)
	b = append(b, `,"invoice_title":`...)
	b = AppendString(b, inv.InvoiceTitle)
	b = append(b, `,"invoice_footer":`...)
	b = AppendString(b, inv.InvoiceFooter)
	b = append(b, `,"payment_return_url":`...)
	b = appendOptString(b, inv.PaymentReturnURL)
	b = append(b, `,"payment_return_url_enabled":`...)
	b = appendBool(b, inv.PaymentReturnURLEnabled)
	b = append(b, `,"receiver_override_enabled":`...)
	b = appendBool(b, inv.ReceiverOverrideEnabled)
	b = append(b, `,"receiver_override_address":`...)
	b = appendOptString(b, inv.ReceiverOverrideAddress)
	b = append(b, `,"questions":`...)
	b = appendQuestions(b, inv.Questions)
	b = append(b, `,"form_responses":`...)
	b = appendFormResponses(b, inv.FormResponses)
	b = append(b, `,"metadata":`...)
	if len(inv.Metadata) == 0 {
		return append(b, "{}"...), nil
	}
	return appendCompactJSON(b, inv.Metadata)
}

// appendAmounts appends the members of invoiceAmounts, each after a comma;
// refunded adds amount_refunded, which only the merchant sees.
func appendAmounts(b []byte, inv *kassa.Invoice, refunded bool) []byte {
	rem := inv.AmountRemaining()
	b = append(b, `,"amount":`...)
	b = strconv.AppendInt(b, int64(inv.Amount), 10)
	b = append(b, `,"amount_decimal":"`...)
	b = appendDecimal(b, inv.Amount)
	b = append(b, `","amount_paid":`...)
	b = strconv.AppendInt(b, int64(inv.AmountPaid), 10)
	b = append(b, `,"amount_paid_decimal":"`...)
	b = appendDecimal(b, inv.AmountPaid)
	b = append(b, `","amount_remaining":`...)
	b = strconv.AppendInt(b, int64(rem), 10)
	b = append(b, `,"amount_remaining_decimal":"`...)
	b = appendDecimal(b, rem)
	b = append(b, `","amount_pending":`...)
	b = strconv.AppendInt(b, int64(inv.AmountPending), 10)
	b = append(b, `,"amount_pending_decimal":"`...)
	b = appendDecimal(b, inv.AmountPending)
	if refunded {
		b = append(b, `","amount_refunded":`...)
		b = strconv.AppendInt(b, int64(inv.AmountRefunded), 10)
		b = append(b, `,"amount_refunded_decimal":"`...)
		b = appendDecimal(b, inv.AmountRefunded)
	}
	return append(b, `","amount_unit":"usd_millis"`...)
}

// appendQuestions appends {"questions":[...]}, or null for nil questions.
func appendQuestions(b []byte, qs []kassa.Question) []byte {
	if qs == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"questions":[`...)
	for i := range qs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = AppendString(b, qs[i].ID)
		b = append(b, `,"question":`...)
		b = AppendString(b, qs[i].Question)
		b = append(b, `,"type":`...)
		b = AppendString(b, qs[i].Type)
		b = append(b, `,"validation":{"required":`...)
		b = appendBool(b, qs[i].Validation.Required)
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// appendFormResponses appends the payor's answers as an array, or null for nil.
func appendFormResponses(b []byte, rs []kassa.FormResponse) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"question_id":`...)
		b = AppendString(b, rs[i].QuestionID)
		b = append(b, `,"response":`...)
		b = AppendString(b, rs[i].Response)
		b = append(b, '}')
	}
	return append(b, ']')
}

// jsonSize is a guess of the length of the canonical object, for a buffer that
// rarely grows.
func size(inv *kassa.Invoice) int {
	n := 1160 + len(inv.Metadata) + len(inv.InvoiceTitle) + len(inv.InvoiceFooter)
	for _, s := range []*string{inv.Description, inv.CustomerEmail, inv.PaymentReturnURL} {
		if s != nil {
			n += len(*s)
		}
	}
	if inv.Questions != nil || inv.FormResponses != nil {
		n += 512
	}
	return n
}
