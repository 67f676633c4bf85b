// Package secondfactor is the dashboard's optional TOTP second factor (RFC 6238:
// 6 digits, 30-second steps, SHA-1, as authenticator apps expect), over
// github.com/pquerna/otp. Codes are accepted one time step either side of now,
// and once: the step a code matched is recorded through Store.
package secondfactor

import (
	"context"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kassapay/kassa"
)

// Issuer names Kassa in the merchant's authenticator app.
const Issuer = "Kassa"

// Period is a code's time step.
const Period = 30 * time.Second

// opts are the code parameters, the authenticator apps' defaults.
var opts = totp.ValidateOpts{Period: uint(Period / time.Second), Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Key is a fresh secret and its otpauth:// URI (the QR code's text).
type Key struct {
	Secret string // base32, for manual entry
	URI    string
}

// New returns a fresh 160-bit secret for account (the merchant's email).
func New(account string) (*Key, error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: account, Period: opts.Period,
		Digits: opts.Digits, Algorithm: opts.Algorithm})
	if err != nil {
		return nil, err
	}
	return &Key{Secret: k.Secret(), URI: k.URL()}, nil
}

// Step returns the time step whose code is code, trying now's step and one
// either side; ok is false when none matches. Spaces in code are ignored.
func Step(secret, code string, now time.Time) (step int64, ok bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if secret == "" || len(code) != opts.Digits.Length() {
		return 0, false
	}
	cur := now.Unix() / int64(opts.Period)
	for _, s := range []int64{cur - 1, cur, cur + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*int64(opts.Period), 0), opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// Verify checks code against the merchant's factor at now and uses its step, so
// the same code fails next time: kassa.ErrInvalidCode when it is wrong, stale,
// replayed or the factor is off.
func Verify(ctx context.Context, st Store, merchantID int64, code string, now time.Time) error {
	secret, err := st.TOTPSecret(ctx, merchantID)
	if err != nil {
		return err
	}
	step, ok := Step(secret, code, now)
	if !ok {
		return kassa.ErrInvalidCode()
	}
	return st.UseTOTPStep(ctx, merchantID, step)
}

// URI is the otpauth:// URI of secret (base32) for account, the text of the QR
// code an authenticator app scans.
func URI(account, secret string) (string, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return "", err
	}
	k, err := totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: account, Period: opts.Period,
		Digits: opts.Digits, Algorithm: opts.Algorithm, Secret: raw})
	if err != nil {
		return "", err
	}
	return k.URL(), nil
}
