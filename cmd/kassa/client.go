package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa/client"
)

// clientFlags are the flags of the commands that talk to a running kassa over its
// API (listen, trigger) with an API key.
type clientFlags struct {
	url    string
	apiKey string
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", envOr("KASSA_URL", "http://127.0.0.1:8080"), "base URL of the running kassa (env KASSA_URL)")
	fs.StringVar(&c.apiKey, "api-key", envOr("KASSA_API_KEY", ""), "API key to use (env KASSA_API_KEY)")
}

func (c *clientFlags) check() error {
	if c.apiKey == "" {
		return errors.New("an API key is required: --api-key or KASSA_API_KEY (kassa serve --dev prints one)")
	}
	if !strings.HasPrefix(c.url, "http://") && !strings.HasPrefix(c.url, "https://") {
		return fmt.Errorf("--url must start with http:// or https://, got %q", c.url)
	}
	c.url = strings.TrimRight(c.url, "/")
	return nil
}

// apiError is an error answer of the API.
type apiError struct {
	status int
	body   string
}

// Error is the API's own message with its code ("HTTP 410 invoice_expired: This
// invoice has expired."), or the raw body when it is not an error object of
// the API (either envelope).
func (e *apiError) Error() string {
	var answer struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal([]byte(e.body), &answer) == nil && answer.Error.Message != "" {
		return fmt.Sprintf("HTTP %d %s: %s", e.status, answer.Error.Code, answer.Error.Message)
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
}

// api is the generated API client (package client) for the running kassa,
// sending the API key with every request.
func (c *clientFlags) api() (*client.ClientWithResponses, error) {
	return client.NewClientWithResponses(c.url, client.WithHTTPClient(newPatientClient(30*time.Second)),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Api-Key", c.apiKey)
			return nil
		}))
}

// notOK is an apiError for an answer of the generated client that is not 2xx,
// with the body it kept; nil for a 2xx.
func notOK(status int, body []byte) error {
	if status/100 != 2 {
		return &apiError{status: status, body: strings.TrimSpace(string(body))}
	}
	return nil
}
