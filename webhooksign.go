package kassa

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// WebhookSecretPrefix starts every webhook signing secret.
const WebhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a new signing secret: "whsec_" and 32 random bytes in
// standard base64, the form Standard Webhooks libraries accept.
func NewWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kassa: crypto/rand failed: " + err.Error())
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// WebhookHeaders returns the Standard Webhooks headers of a delivery of payload with
// message id msgID at time ts, signed with each secret: webhook-id,
// webhook-timestamp and webhook-signature ("v1,<base64 HMAC-SHA256>" per secret,
// space-separated).
func WebhookHeaders(secrets []string, msgID string, ts time.Time, payload []byte) (map[string]string, error) {
	unix := strconv.FormatInt(ts.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, WebhookSecretPrefix))
		if err != nil {
			return nil, fmt.Errorf("kassa: bad webhook secret: %w", err)
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msgID + "." + unix + "."))
		m.Write(payload)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return map[string]string{
		"webhook-id":        msgID,
		"webhook-timestamp": unix,
		"webhook-signature": strings.Join(sigs, " "),
	}, nil
}
