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

// IssueDashboardToken signs a dashboard JWT for a merchant; it returns the token and its expiry.
func (s *Core) IssueDashboardToken(merchantID int64) (string, time.Time, error) {
	now := s.now().Truncate(time.Second)
	exp := now.Add(tokenTTL)
	claims := jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(merchantID, 10),
		Issuer:    tokenIssuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.secret)
	return token, exp, err
}

func ErrInvalidDashboardToken() error {
	return ErrUnauthenticated("invalid_token", "The bearer token is invalid or has expired; log in again.")
}

// ParseDashboardToken verifies a dashboard JWT and returns its merchant id.
func (s *Core) ParseDashboardToken(token string) (int64, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now))
	if err != nil {
		return 0, ErrInvalidDashboardToken()
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, ErrInvalidDashboardToken()
	}
	return id, nil
}
