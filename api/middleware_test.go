package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/idempotency"
)

// fakeKeys authenticates one secret as a devnet merchant key of merchant 1.
type fakeKeys struct {
	apikeys.Store
	secret string
}

func (f fakeKeys) AuthenticateAPIKey(_ context.Context, secret string) (*kassa.APIKey, error) {
	if secret != f.secret {
		return nil, kassa.Errorf(kassa.KindUnauthenticated, "invalid_api_key", "Invalid API key.")
	}
	return &kassa.APIKey{ID: "k1", MerchantID: 1, Scope: kassa.ScopeMerchant, Environment: kassa.Devnet}, nil
}

func (fakeKeys) TouchAPIKey(context.Context, string, time.Time) error { return nil }

// brokenInvoices panics on create and fails on list with a foreign error.
type brokenInvoices struct{ kassa.InvoiceService }

func (brokenInvoices) CreateInvoice(context.Context, kassa.Principal, kassa.InvoiceCreate, *kassa.SavedResponse[kassa.CreatedInvoice]) (*kassa.Invoice, string, error) {
	panic("boom")
}

func (brokenInvoices) Invoices(context.Context, kassa.InvoiceFilter) ([]*kassa.Invoice, bool, error) {
	return nil, false, errors.New("pq: relation invoices does not exist at 10.0.0.5")
}

// memIdempotency is an in-memory httpx.IdempotencyStore.
type memIdempotency struct {
	mu   sync.Mutex
	recs map[kassa.IdempotencyScope]*idempotency.Record
}

func (m *memIdempotency) ClaimIdempotencyKey(_ context.Context, s kassa.IdempotencyScope, fp string) (*idempotency.Record, error) {
	s.Owner = "" // the fake keeps one claim per key, whoever made it
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.recs[s]; ok {
		c := *r
		return &c, nil
	}
	m.recs[s] = &idempotency.Record{Fingerprint: fp}
	return nil, nil
}

func (m *memIdempotency) CompleteIdempotencyKey(_ context.Context, s kassa.IdempotencyScope, status int, body []byte) error {
	s.Owner = ""
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.recs[s]
	r.Done, r.StatusCode, r.Body = true, status, body
	return nil
}

func (m *memIdempotency) ReleaseIdempotencyKey(_ context.Context, s kassa.IdempotencyScope) error {
	s.Owner = ""
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, s)
	return nil
}

func (m *memIdempotency) IdempotencyRecord(_ context.Context, s kassa.IdempotencyScope) (*idempotency.Record, error) {
	s.Owner = ""
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.recs[s]; ok {
		c := *r
		return &c, nil
	}
	return nil, nil
}

func (m *memIdempotency) SaveIdempotentResponse(_ context.Context, s kassa.IdempotencyScope, fp string, status int, body []byte) error {
	s.Owner = ""
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recs[s]; ok {
		return kassa.ErrClaimLost
	}
	m.recs[s] = &idempotency.Record{Fingerprint: fp, Done: true, StatusCode: status, Body: body}
	return nil
}

const fakeSecret = "kassa_devnet_merchant_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func newFakeServer(t *testing.T, logs *bytes.Buffer) *httptest.Server {
	t.Helper()
	checker, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(checker.Handler(New(Config{
		Secret: []byte("s"), Keys: fakeKeys{secret: fakeSecret}, Invoices: brokenInvoices{},
		Idempotency: &memIdempotency{recs: map[kassa.IdempotencyScope]*idempotency.Record{}},
		Logger:      slog.New(slog.NewJSONHandler(logs, nil)),
	}), t.Errorf))
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, srv *httptest.Server, method, path, body string, h map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

func TestPanicAndInternalErrors(t *testing.T) {
	var logs bytes.Buffer
	srv := newFakeServer(t, &logs)
	h := map[string]string{"X-Api-Key": fakeSecret, "Idempotency-Key": kassa.NewUUID(), "Content-Type": "application/json"}
	for i, wantReplay := range []string{"", "true"} {
		resp, body := send(t, srv, "POST", "/api/v1/invoices", `{"amount_usd": 1}`, h)
		e, _ := body["error"].(map[string]any)
		if resp.StatusCode != 500 || e["type"] != "api_error" || e["message"] != httpx.InternalMessage {
			t.Fatalf("attempt %d: %d %v", i, resp.StatusCode, body)
		}
		if resp.Header.Get("Idempotent-Replayed") != wantReplay {
			t.Errorf("attempt %d: Idempotent-Replayed %q", i, resp.Header.Get("Idempotent-Replayed"))
		}
	}
	if !strings.Contains(logs.String(), "panic in handler") || !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged: %s", logs.String())
	}
	resp, body := send(t, srv, "GET", "/api/v1/invoices", "", map[string]string{"X-Api-Key": fakeSecret})
	e, _ := body["error"].(map[string]any)
	if resp.StatusCode != 500 || strings.Contains(e["message"].(string), "10.0.0.5") || e["request_id"] != resp.Header.Get("Request-Id") {
		t.Errorf("foreign error: %d %v", resp.StatusCode, body)
	}
	if strings.Contains(logs.String(), fakeSecret) {
		t.Errorf("the API key secret was logged")
	}
	if !strings.Contains(logs.String(), `"status":500`) || !strings.Contains(logs.String(), `"request_id":"req_`) {
		t.Errorf("access log lacks fields: %s", logs.String())
	}
}

func TestContentTypeAndBodyLimits(t *testing.T) {
	srv := newFakeServer(t, &bytes.Buffer{})
	h := map[string]string{"X-Api-Key": fakeSecret, "Idempotency-Key": kassa.NewUUID(), "Content-Type": "application/x-www-form-urlencoded"}
	resp, body := send(t, srv, "POST", "/api/v1/invoices", "amount_usd=1", h)
	if resp.StatusCode != 400 || body["error"].(map[string]any)["code"] != "invalid_content_type" {
		t.Errorf("form body: %d %v", resp.StatusCode, body)
	}
	resp, _ = send(t, srv, "GET", "/healthz", "", map[string]string{"Content-Type": "text/plain"})
	if resp.StatusCode != 200 {
		t.Errorf("GET with a content type: %d", resp.StatusCode)
	}
}
