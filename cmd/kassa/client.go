package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
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

func (e *apiError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// do sends a JSON request with the API key and decodes a 2xx answer into out.
func (c *clientFlags) do(ctx context.Context, method, path string, headers map[string]string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", c.apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &apiError{status: resp.StatusCode, body: strings.TrimSpace(string(raw))}
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
