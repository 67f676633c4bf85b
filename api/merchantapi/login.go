package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/signin"
)

// loginResponse is the body of a successful login.
type loginResponse struct {
	Token     string `json:"token"`
	TokenType string `json:"token_type"`
	ExpiresAt string `json:"expires_at"`
}

// Login serves POST /api/v1/auth/login {email, password, code}: code is the
// two-step code, required when it is on (401 second_factor_required). Attempts
// are limited per client IP, and per account by signin.Service (429
// too_many_attempts with Retry-After).
func (a *API) Login(w http.ResponseWriter, r *http.Request) error {
	if err := a.core.LimitLogin(w, r); err != nil {
		return err
	}
	var email, password, code *string
	err := httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "email":
			email, err = httpx.OptString(f)
		case "password":
			password, err = httpx.OptString(f)
		case "code":
			code, err = httpx.OptString(f)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if email == nil {
		return httpx.ErrMissing("email")
	}
	if password == nil {
		return httpx.ErrMissing("password")
	}
	m, err := a.signIn.Login(r.Context(), *email, signin.Proof{Password: *password, Code: deref(code)})
	if err != nil {
		switch e := kassa.AsError(err); {
		case e.Code == "second_factor_required" || e.Code == "invalid_code":
			return err
		case e.Kind == kassa.KindUnauthenticated, e.Kind == kassa.KindNotFound, e.Kind == kassa.KindInvalid:
			return httpx.ErrUnauthenticated("invalid_credentials", "The email or password is incorrect.")
		}
		return err
	}
	token, exp, err := a.core.IssueDashboardToken(m.ID, m.CredentialVersion)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store") // the answer is a credential
	httpx.WriteJSON(w, http.StatusOK, loginResponse{Token: token, TokenType: "Bearer", ExpiresAt: kassa.FormatTime(exp)})
	return nil
}

// SignOutEverywhere serves POST /api/v1/auth/sign-out-everywhere (JWT): every
// dashboard token and session of the merchant ends, this token too (204).
func (a *API) SignOutEverywhere(w http.ResponseWriter, r *http.Request) error {
	if err := a.signIn.SignOutEverywhere(r.Context(), httpx.Principal(r.Context()).MerchantID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
