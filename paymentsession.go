package kassa

import (
	"strings"
	"time"
)

// SessionGrace is how long a payment session outlives its invoice's expiry, so a
// payor can still see a paid or expired status.
const SessionGrace = 24 * time.Hour

// NewSessionToken returns a new payment session token for an invoice: "ps_", the
// invoice id's 32 hex digits, "_", then 32 random bytes in base32. The id is the
// token's selector, so the store finds the invoice by its primary key and compares
// the hash of the whole token, instead of keeping a unique index of random hashes
// (one random page written per create). The id is no secret (it is in the payment
// URL); the 256 random bits are.
func NewSessionToken(invoiceID string) string {
	return sessionPrefix + strings.ReplaceAll(invoiceID, "-", "") + "_" + RandomBase32(32)
}

const sessionPrefix = "ps_"

// sessionTokenLen is the length of a token from NewSessionToken: the prefix, 32
// hex digits, "_" and 52 base32 characters.
const sessionTokenLen = len(sessionPrefix) + 32 + 1 + 52

// SessionInvoiceID returns the id of the invoice a session token names, or false
// for a token that names none: malformed, or issued before tokens carried their
// invoice's id ("ps_" and 52 base32 characters), which the store still finds by
// their hash alone.
func SessionInvoiceID(token string) (string, bool) {
	if len(token) != sessionTokenLen || !strings.HasPrefix(token, sessionPrefix) || token[len(sessionPrefix)+32] != '_' {
		return "", false
	}
	h := token[len(sessionPrefix) : len(sessionPrefix)+32]
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false // ids are lowercase; another spelling is another token
		}
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], true
}
