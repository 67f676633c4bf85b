package merchantapi

import (
	"net/http"

	"kassa"
	"kassa/api/httpx"
)

// loginResponse is the body of a successful login.
type loginResponse struct {
	Token     string `json:"token"`
	TokenType string `json:"token_type"`
	ExpiresAt string `json:"expires_at"`
}

// Login serves POST /api/v1/auth/login {email, password}. Attempts are
// limited per client IP to slow password guessing.
func (a *API) Login(w http.ResponseWriter, r *http.Request) error {
	if err := a.core.LimitLogin(w, r); err != nil {
		return err
	}
	var email, password *string
	err := httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "email":
			email, err = httpx.OptString(f)
		case "password":
			password, err = httpx.OptString(f)
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
	m, err := a.merchants.Login(r.Context(), *email, *password)
	if err != nil {
		switch kassa.ErrorKindOf(err) {
		case kassa.KindUnauthenticated, kassa.KindNotFound, kassa.KindInvalid:
			return httpx.ErrUnauthenticated("invalid_credentials", "The email or password is incorrect.")
		}
		return err
	}
	token, exp, err := a.core.IssueDashboardToken(m.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, loginResponse{Token: token, TokenType: "Bearer", ExpiresAt: kassa.FormatTime(exp)})
	return nil
}
