package dashboard

import (
	"strings"

	"kassa"
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
