package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"kassa"
)

// Dashboard token settings.
const (
	tokenTTL    = 12 * time.Hour
	tokenIssuer = "kassa"
)

// issueToken signs a dashboard JWT for a merchant; it returns the token and its expiry.
func (s *server) issueToken(merchantID int64) (string, time.Time, error) {
	now := s.now().Truncate(time.Second)
	exp := now.Add(tokenTTL)
	claims := jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(merchantID, 10),
		Issuer:    tokenIssuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.cfg.Secret)
	return token, exp, err
}

func errInvalidToken() error {
	return errUnauthenticated("invalid_token", "The bearer token is invalid or has expired; log in again.")
}

// parseToken verifies a dashboard JWT and returns its merchant id.
func (s *server) parseToken(token string) (int64, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return s.cfg.Secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now))
	if err != nil {
		return 0, errInvalidToken()
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, errInvalidToken()
	}
	return id, nil
}

// loginResponse is the body of a successful login.
type loginResponse struct {
	Token     string `json:"token"`
	TokenType string `json:"token_type"`
	ExpiresAt string `json:"expires_at"`
}

// loginHandler serves POST /api/v1/auth/login {email, password}. Attempts are
// limited per client IP to slow password guessing.
func (s *server) loginHandler(w http.ResponseWriter, r *http.Request) error {
	if err := apply(w, s.login, "ip:"+clientIP(r)); err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	fields, err := parseObject(body, "")
	if err != nil {
		return err
	}
	var email, password *string
	for _, f := range fields {
		switch f.key {
		case "email":
			email, err = optString(f)
		case "password":
			password, err = optString(f)
		default:
			err = errUnknownParam(f.key)
		}
		if err != nil {
			return err
		}
	}
	if email == nil {
		return errMissing("email")
	}
	if password == nil {
		return errMissing("password")
	}
	m, err := s.cfg.Merchants.Login(r.Context(), *email, *password)
	if err != nil {
		switch kassa.ErrorKindOf(err) {
		case kassa.KindUnauthenticated, kassa.KindNotFound, kassa.KindInvalid:
			return errUnauthenticated("invalid_credentials", "The email or password is incorrect.")
		}
		return err
	}
	token, exp, err := s.issueToken(m.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, loginResponse{Token: token, TokenType: "Bearer", ExpiresAt: kassa.FormatTime(exp)})
	return nil
}
