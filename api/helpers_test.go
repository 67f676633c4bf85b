package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

var testSecret = []byte("test-secret-0123456789abcdef0123456789")

// testEnv is a real API on a real store, served over loopback HTTP.
type testEnv struct {
	t     *testing.T
	db    *store.DB
	srv   *httptest.Server
	clock *storetest.Clock // nil: real time
}

// envOption adjusts the API config of a test environment.
type envOption func(*api.Config)

func withLimits(l httpx.RateLimits) envOption { return func(c *api.Config) { c.Limits = l } }

// newEnv opens a store for cfg and serves the API over it.
func newEnv(t *testing.T, cfg store.Config, opts ...envOption) *testEnv {
	t.Helper()
	return newEnvClock(t, cfg, nil, opts...)
}

// newEnvClock is newEnv with the store and the API sharing a settable clock.
func newEnvClock(t *testing.T, cfg store.Config, clock *storetest.Clock, opts ...envOption) *testEnv {
	t.Helper()
	if clock != nil {
		cfg.Now = clock.Now
	}
	return newEnvOn(t, storetest.Open(t, cfg), clock, opts...)
}

// newEnvOn serves the API over an open store.
func newEnvOn(t *testing.T, db *store.DB, clock *storetest.Clock, opts ...envOption) *testEnv {
	t.Helper()
	rates, err := registry.LoadStatic("", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wallets := map[kassa.Environment]payment.AddressDeriver{}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		w, err := hdwallet.LoadOrCreate(t.TempDir(), env, storetest.Secrets)
		if err != nil {
			t.Fatal(err)
		}
		wallets[env] = w
	}
	invoices := invoicing.Over(db)
	ac := api.Config{
		Registry: registry.Default(), Rates: rates,
		Pay: &payment.Service{Registry: registry.Default(), Rates: rates, Addresses: db, Wallets: wallets,
			Invoices: invoices, Payments: db},
		PublicURL: "http://pay.test", Secret: testSecret,
		Merchants: db, Keys: db, Invoices: invoices, Payments: db, Payor: db, Idempotency: db, Health: db.Ping,
		Events: db, Webhooks: db, Sessions: db, Overview: db, Refunds: db,
		Limits: httpx.RateLimits{Rate: 1e6, Burst: 1e6, CreateRate: 1e6, CreateBurst: 1e6, LoginRate: 1e6, LoginBurst: 1e6,
			PayorRate: 1e6, PayorBurst: 1e6, PayorAddrRate: 1e6, PayorAddrBurst: 1e6,
			VerifyRate: 1e6, VerifyBurst: 1e6, VerifyAddrRate: 1e6, VerifyAddrBurst: 1e6},
	}
	if clock != nil {
		ac.Now = clock.Now
	}
	for _, o := range opts {
		o(&ac)
	}
	srv := httptest.NewServer(checked(t, api.New(ac)))
	t.Cleanup(srv.Close)
	return &testEnv{t: t, db: db, srv: srv, clock: clock}
}

// response is a decoded HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// obj decodes the body as a JSON object.
func (r *response) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// errorDetail returns the error object of an error response.
func (r *response) errorDetail(t *testing.T) map[string]any {
	t.Helper()
	e, ok := r.obj(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.body)
	}
	return e
}

// request is one HTTP request to the test server.
type request struct {
	method, path string
	body         string
	headers      map[string]string
}

func (e *testEnv) do(req request) *response {
	e.t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(context.Background(), req.method, e.srv.URL+req.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if req.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.headers {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.Header.Get("Request-Id") == "" || !strings.HasPrefix(resp.Header.Get("Request-Id"), "req_") {
		e.t.Errorf("%s %s: no Request-Id header", req.method, req.path)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

// expectStatus fails the test unless r has the status.
func expectStatus(t *testing.T, r *response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
}

// expectError checks an error response: status, code, param ("" for null) and that
// the body repeats the Request-Id header.
func expectError(t *testing.T, r *response, status int, typ, code, param string) {
	t.Helper()
	expectStatus(t, r, status)
	e := r.errorDetail(t)
	if typ != "" && e["type"] != typ {
		t.Errorf("type %v, want %s", e["type"], typ)
	}
	if e["code"] != code {
		t.Errorf("code %v, want %s (%s)", e["code"], code, r.body)
	}
	if param == "" {
		if v, ok := e["param"]; !ok || v != nil {
			t.Errorf("param %v, want null", v)
		}
	} else if e["param"] != param {
		t.Errorf("param %v, want %s", e["param"], param)
	}
	if e["request_id"] != r.header.Get("Request-Id") {
		t.Errorf("request_id %v != header %s", e["request_id"], r.header.Get("Request-Id"))
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("empty message")
	}
}

// merchant is a merchant with a dashboard token and a devnet merchant key.
type merchant struct {
	e     *testEnv
	m     *kassa.Merchant
	token string
	key   string
}

var merchantCounter atomic.Int64

// newMerchant creates a merchant in the store, logs it in and makes a merchant key.
func (e *testEnv) newMerchant(mainnet bool) *merchant {
	e.t.Helper()
	n := merchantCounter.Add(1)
	email := "m" + strconv.FormatInt(n, 10) + "@example.com"
	m, err := e.db.CreateMerchant(context.Background(), kassa.MerchantCreate{
		Name: "Shop " + strconv.FormatInt(n, 10), Email: email, Password: "correct horse", MainnetEnabled: mainnet,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.do(request{method: "POST", path: "/api/v1/auth/login",
		body: `{"email":"` + email + `","password":"correct horse"}`})
	expectStatus(e.t, r, 200)
	mc := &merchant{e: e, m: m, token: r.obj(e.t)["token"].(string)}
	mc.key = mc.createKey(`{"name":"server"}`)["api_key"].(string)
	return mc
}

// jwt returns headers authenticating with the merchant's dashboard token.
func (m *merchant) jwt() map[string]string {
	return map[string]string{"Authorization": "Bearer " + m.token}
}

// withKey returns headers authenticating with an API key secret.
func withKey(secret string) map[string]string { return map[string]string{"X-Api-Key": secret} }

// createKey creates an API key with the dashboard token and returns the response.
func (m *merchant) createKey(body string) map[string]any {
	m.e.t.Helper()
	r := m.e.do(request{method: "POST", path: "/api/v1/api-keys", body: body, headers: m.jwt()})
	expectStatus(m.e.t, r, 201)
	return r.obj(m.e.t)
}

// newIdemKey returns a fresh UUID v4 for Idempotency-Key.
func newIdemKey() string { return kassa.NewUUID() }

// createInvoice creates an invoice with the merchant key and returns the response body.
func (m *merchant) createInvoice(body string) map[string]any {
	m.e.t.Helper()
	r := m.postInvoice(body, newIdemKey())
	expectStatus(m.e.t, r, 201)
	return r.obj(m.e.t)
}

// postInvoice posts an invoice create with the merchant key and an idempotency key.
func (m *merchant) postInvoice(body, idemKey string) *response {
	m.e.t.Helper()
	h := withKey(m.key)
	h["Idempotency-Key"] = idemKey
	return m.e.do(request{method: "POST", path: "/api/v1/invoices", body: body, headers: h})
}

// get sends a GET with the merchant key.
func (m *merchant) get(path string) *response {
	m.e.t.Helper()
	return m.e.do(request{method: "GET", path: path, headers: withKey(m.key)})
}
