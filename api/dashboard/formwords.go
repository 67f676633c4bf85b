package dashboard

import (
	"strings"

	"github.com/kassapay/kassa"
)

// formWords are what a dashboard form says when the API's rules refuse a field,
// by "param:code" or else by the error's code alone: the API's messages name
// JSON params and types ("amount_usd must be a JSON number"), which a merchant
// typing into a form never sees. A code missing here shows the API's message.
var formWords = map[string]string{
	"amount_invalid":                 "Enter an amount such as 12.50.",
	"amount_out_of_range":            "Enter an amount from 0.01 to 1,000,000 USD.",
	"invalid_email":                  "Enter an email address such as name@example.com.",
	"default_return_url:invalid_url": "Enter a web address that starts with https://.",
	"invalid_network":                "Choose a network from the list.",
	"invalid_token_symbol":           "Choose a token from the list.",
	"invalid_address":                "Enter an address such as 0x52908400098527886E0F7030069857D2E4169EE7: 0x and 40 letters or digits.",
	"invalid_address_checksum":       "This address has a typing mistake (its capital letters do not match): copy it again from your wallet.",
	"invalid_tolerance":              "Enter a tolerance from 0 to 1,000,000 USD, such as 0.50.",
	// A refund's form (refundform.go); "refund:" keys are said only there.
	"amount_usd:invalid_amount":         "Enter an amount above zero, such as 4.50.",
	"amount_token:invalid_amount":       "Enter a token amount above zero, such as 0.25, with no more decimals than the token has.",
	"amount_token_units:invalid_amount": "Enter a token amount above zero, such as 0.25, with no more decimals than the token has.",
	"refund_exceeds_paid":               "This is more than is still refundable: the most you can refund is shown under the field.",
	"parameter_conflict":                "Give the amount in USD or in the token, not both.",
	"payment_unpriced":                  "No rate valued this payment: give the amount in the token instead.",
	"invalid_reason":                    "Keep the reason to 255 characters.",
	"invalid_rate":                      "Choose the rate it was paid at or today's rate.",
	"address:missing_param":             "Enter the address to send the refund to, or choose to ask the payor.",
	"nothing_to_refund":                 "Nothing is left to refund here: earlier refunds took it all.",
	"rate_unavailable":                  "Today's rate of this token is not known right now: refund at the rate it was paid, or try again later.",
	"refund_conflict":                   "The invoice changed while you were refunding: check the refund again.",
	"refund:reauthentication_required":  "Enter your current password: a refund to an address on mainnet sends real money.",
	"refund:invalid_current_password":   "That is not your current password.",
	"refund:second_factor_required":     "Enter the code from your authenticator app.",
	"refund:invalid_code":               "That code is not right or was used already: enter the one your app shows now.",
	"refund:too_many_attempts":          "Too many attempts: wait a minute and try again.",
}

// refundMessage is err's message on a refund's form: its own words first (the
// "refund:" entries), then formMessage's.
func refundMessage(err error) string {
	if w, ok := formWords["refund:"+kassa.AsError(err).Code]; ok {
		return w
	}
	return formMessage(err)
}

// formMessage is err's message in a merchant's words: the table's, else the
// API's message with the param it starts with said as "This field".
func formMessage(err error) string {
	e := kassa.AsError(err)
	if w, ok := formWords[e.Param+":"+e.Code]; ok {
		return w
	}
	if w, ok := formWords[e.Code]; ok {
		return w
	}
	if e.Param != "" {
		if rest, ok := strings.CutPrefix(e.Message, e.Param+" "); ok {
			return "This field " + rest
		}
	}
	return e.Message
}
