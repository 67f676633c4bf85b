package httpx

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// payorLimiters are the payor API's buckets (RateLimits.Payor*, Verify*). The
// payor API's credential is a payment session that anyone who opens a checkout
// gets, so besides the session's own bucket a client address has one across the
// sessions it holds.
type payorLimiters struct {
	session, addr      RateLimiter // every payor request
	verify, verifyAddr RateLimiter // POST verify, on top; verifyAddr also per merchant credential
}

// sessionKey names a payment session's bucket by a hash of its token: the token
// is a credential, and a shared budget's key is stored.
func sessionKey(token string) string {
	h := sha256.Sum256([]byte(token))
	return "ps:" + hex.EncodeToString(h[:16])
}

// LimitPayorAddr takes a token from the payor bucket of the request's client
// address; it runs before the session is checked, so guessing sessions is
// limited too.
func (s *Core) LimitPayorAddr(w http.ResponseWriter, r *http.Request) error {
	return Apply(r.Context(), w, s.payor.addr, s.AddrKey(r))
}

// LimitPayorSession takes a token from the bucket of the payment session token
// (one whose signature was checked).
func (s *Core) LimitPayorSession(w http.ResponseWriter, r *http.Request, token string) error {
	return Apply(r.Context(), w, s.payor.session, sessionKey(token))
}

// LimitVerifySession takes a token from verify's buckets of the payment session
// token and of the client address: a POST verify is an RPC look-up.
func (s *Core) LimitVerifySession(w http.ResponseWriter, r *http.Request, token string) error {
	if err := Apply(r.Context(), w, s.payor.verifyAddr, s.AddrKey(r)); err != nil {
		return err
	}
	return Apply(r.Context(), w, s.payor.verify, sessionKey(token))
}

// LimitVerifyPrincipal takes a token from verify's per-client bucket of an
// authenticated request's credential: a merchant's own server, which may verify
// for many invoices, is one client as a payor's address is.
func (s *Core) LimitVerifyPrincipal(w http.ResponseWriter, r *http.Request) error {
	return Apply(r.Context(), w, s.payor.verifyAddr, LimitKey(Principal(r.Context())))
}
