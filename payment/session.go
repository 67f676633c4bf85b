package payment

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
)

// SessionSigner signs payment session tokens (kassa.NewSessionToken) with the
// server secret, and the refund claim links with it:
// signature = hex(HMAC-SHA256(secret, token)).
type SessionSigner struct{ secret []byte }

// NewSessionSigner returns a signer keyed by the server secret.
func NewSessionSigner(secret []byte) SessionSigner { return SessionSigner{secret: secret} }

// Sign returns the signature of a session token.
func (s SessionSigner) Sign(token string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a signature against a token in constant time.
func (s SessionSigner) Verify(token, signature string) bool {
	return hmac.Equal([]byte(s.Sign(token)), []byte(strings.ToLower(signature)))
}

// PaymentURL is the hosted payment page of an invoice, carrying its session.
func (s SessionSigner) PaymentURL(publicURL, invoiceID, token string) string {
	q := url.Values{"session": {token}, "signature": {s.Sign(token)}}
	return strings.TrimRight(publicURL, "/") + "/pay/" + invoiceID + "?" + q.Encode()
}

// SessionHeaders is the payment_session_headers convenience mapping of a create
// response: the headers a payor client sends with a payment session.
type SessionHeaders struct {
	SessionToken string `json:"x-session-token"`
	Signature    string `json:"x-signature"`
}
