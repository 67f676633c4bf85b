package httpx

import (
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Dashboard token settings.
const (
	tokenTTL    = 12 * time.Hour
	tokenIssuer = "kassa"
)

// dashboardClaims are a dashboard JWT's claims: the registered ones and cv, the
// merchant's credential version when it was issued.
type dashboardClaims struct {
	jwt.RegisteredClaims
	CredentialVersion int64 `json:"cv"`
}

// IssueDashboardToken signs a dashboard JWT for a merchant under its credential
// version; it returns the token and its expiry.
func (s *Core) IssueDashboardToken(merchantID, credentialVersion int64) (string, time.Time, error) {
	now := s.now().Truncate(time.Second)
	exp := now.Add(tokenTTL)
	claims := dashboardClaims{RegisteredClaims: jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(merchantID, 10),
		Issuer:    tokenIssuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}, CredentialVersion: credentialVersion}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.secret)
	return token, exp, err
}

func ErrInvalidDashboardToken() error {
	return ErrUnauthenticated("invalid_token", "The bearer token is invalid or has expired; log in again.")
}

// ErrDashboardTokenRevoked is the answer to a dashboard JWT issued before the
// merchant's credentials changed (password, two-step, sign out everywhere).
func ErrDashboardTokenRevoked() error {
	return ErrUnauthenticated("token_revoked", "The bearer token was issued before the account's password or two-step sign-in changed, or before a sign-out everywhere; log in again.")
}

// ParseDashboardToken verifies a dashboard JWT and returns its merchant id and
// the credential version it was issued under (0 when it carries none).
func (s *Core) ParseDashboardToken(token string) (id, credentialVersion int64, err error) {
	id, credentialVersion, _, err = s.parseDashboardToken(token)
	return id, credentialVersion, err
}

// parseDashboardToken is ParseDashboardToken with the token's expiry (Unix seconds).
func (s *Core) parseDashboardToken(token string) (id, credentialVersion, expires int64, err error) {
	var claims dashboardClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now))
	if err != nil {
		return 0, 0, 0, ErrInvalidDashboardToken()
	}
	id, err = strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, 0, 0, ErrInvalidDashboardToken()
	}
	return id, claims.CredentialVersion, claims.ExpiresAt.Unix(), nil
}
