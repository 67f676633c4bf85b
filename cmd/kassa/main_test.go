package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kassa"
	"kassa/api/openapi/openapitest"
	"kassa/store"
	"kassa/store/storetest"
)

// kassaBin is the binary built once for the end-to-end tests.
var kassaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kassa-e2e")
	if err != nil {
		panic(err)
	}
	kassaBin = filepath.Join(dir, "kassa")
	build := exec.Command("go", "build", "-o", kassaBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kassa:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if c, err := openapitest.Shared(); err == nil && testing.Verbose() {
		fmt.Print(c.Report())
	}
	os.Exit(code)
}

// instance is a running kassa serve --dev process.
type instance struct {
	cmd         *exec.Cmd
	url         string
	merchantKey string
	commerceKey string
	email       string
	password    string
	chainURL    string // the dev chain's JSON-RPC
	gasWallet   string // the dev chain's gas wallet, from the banner
	exited      chan error
	args, env   []string // what it was started with, to start it again
}

// storeArgs are the flags that point a kassa command at the test's store.
func storeArgs(cfg store.Config) []string {
	args := []string{"--data-dir", cfg.DataDir}
	if cfg.DatabaseURL != "" {
		args = append(args, "--database-url", cfg.DatabaseURL)
	}
	return args
}

// startKassa starts "kassa serve --dev" on a free port and reads what it prints.
func startKassa(t *testing.T, cfg store.Config, extra ...string) *instance {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	args := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--devchain-addr", "127.0.0.1:0"}, storeArgs(cfg)...)
	return startServe(t, nil, append(args, extra...)...)
}

// startServe runs kassa with args and the extra environment variables env, and
// reads what it prints until it listens.
func startServe(t *testing.T, env []string, args ...string) *instance {
	t.Helper()
	cmd := exec.Command(kassaBin, args...)
	base := os.Environ()
	if os.Getenv("KASSA_DRAIN_DELAY") == "" {
		// No drain unless a test asks for one (its flag or env wins): a graceful
		// stop on PostgreSQL would otherwise wait the 5 s default for a proxy.
		base = append(base, "KASSA_DRAIN_DELAY=0")
	}
	cmd.Env = append(base, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, exited: make(chan error, 1), args: args, env: env}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		in.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("kassa stderr:\n%s", stderr.String())
		}
	})
	fields := map[string]*string{
		"merchant key:": &in.merchantKey, "commerce key:": &in.commerceKey,
		"login email:": &in.email, "login password:": &in.password, "gas wallet:": &in.gasWallet,
	}
	listening := regexp.MustCompile(`^kassa listening on (\S+)`)
	devChain := regexp.MustCompile(`^Dev chain .*JSON-RPC (\S+),`)
	deadline := time.After(60 * time.Second)
	for in.url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("kassa exited before listening; stderr:\n%s", stderr.String())
			}
			for prefix, dst := range fields {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
					*dst = strings.TrimSpace(v)
				}
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				in.url = "http://" + m[1]
			}
			if m := devChain.FindStringSubmatch(line); m != nil {
				in.chainURL = m[1]
			}
		case <-deadline:
			t.Fatalf("kassa did not start in time; stderr:\n%s", stderr.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	return in
}

// lockedBuffer is a bytes.Buffer safe for a writing process and a reading test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// call sends a JSON request and decodes a JSON response into out (when not nil).
func call(t *testing.T, method, url string, headers map[string]string, body any, out any) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	checkOpenAPI(t, req, resp, raw)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: status %d, body %q: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp
}

// checkOpenAPI checks an exchange of call with a Kassa server against the OpenAPI
// document (the API's paths; not the HTML pages, the dev chain or webhook
// receivers).
func checkOpenAPI(t *testing.T, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	p := req.URL.Path
	if !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/ws/") && p != "/healthz" && p != "/readyz" && p != "/metrics" {
		return
	}
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	var reqBody []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
		}
	}
	for _, problem := range c.Check(openapitest.Exchange{Request: req, RequestBody: reqBody,
		Status: resp.StatusCode, Header: resp.Header, Body: body}) {
		t.Errorf("openapi: %s", problem)
	}
}

// wantStatus fails the test unless resp has the given status.
func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want)
	}
}

func TestEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		if k.merchantKey == "" || k.commerceKey == "" || k.email == "" || k.password == "" {
			t.Fatalf("dev credentials not printed: %+v", k)
		}
		var health map[string]string
		wantStatus(t, call(t, "GET", k.url+"/healthz", nil, nil, &health), 200)
		wantStatus(t, call(t, "GET", k.url+"/readyz", nil, nil, nil), 200)

		// Dashboard login, then a new key made with the JWT.
		var login struct{ Token, TokenType string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/auth/login", nil,
			map[string]string{"email": k.email, "password": k.password}, &login), 200)
		jwt := map[string]string{"Authorization": "Bearer " + login.Token}
		var key struct {
			KeyID  string `json:"key_id"`
			APIKey string `json:"api_key"`
		}
		wantStatus(t, call(t, "POST", k.url+"/api/v1/api-keys", jwt,
			map[string]any{"name": "e2e", "scope": "merchant"}, &key), 201)
		auth := map[string]string{"x-api-key": key.APIKey, "Idempotency-Key": kassa.NewUUID()}

		// Create an invoice, replay it, read it back in the list and alone.
		var created struct {
			InvoiceID  string `json:"invoice_id"`
			PaymentURL string `json:"payment_url"`
		}
		body := map[string]any{"amount_usd": 12.5, "description": "e2e", "metadata": map[string]any{"order": 7}}
		wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", auth, body, &created), 201)
		replay := call(t, "POST", k.url+"/api/v1/invoices", auth, body, nil)
		if replay.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay lacks Idempotent-Replayed header")
		}
		if !strings.HasPrefix(created.PaymentURL, k.url+"/pay/"+created.InvoiceID+"?") {
			t.Errorf("payment_url %q", created.PaymentURL)
		}
		var list struct {
			Data []struct {
				ID     string `json:"id"`
				Amount int64  `json:"amount"`
			} `json:"data"`
			HasMore bool `json:"has_more"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices?limit=10", map[string]string{"x-api-key": k.merchantKey}, nil, &list), 200)
		if len(list.Data) != 1 || list.Data[0].ID != created.InvoiceID || list.Data[0].Amount != 12500 {
			t.Fatalf("list = %+v", list)
		}
		var inv map[string]any
		wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices/"+created.InvoiceID+"/cancel", jwt, nil, &inv), 200)
		if inv["status"] != "canceled" {
			t.Errorf("status after cancel = %v", inv["status"])
		}
		payAndSettle(t, k, auth)
		// The commerce key may not use merchant endpoints.
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices", map[string]string{"x-api-key": k.commerceKey}, nil, nil), 403)
		stopGracefully(t, k)
	})
}

// payAndSettle runs the payments flow end to end: create an invoice, open its
// session, pick a token and get a deposit address, pay part then the rest through
// the devnet endpoint, and wait for the settlement worker to settle both receipts.
func payAndSettle(t *testing.T, k *instance, auth map[string]string) {
	t.Helper()
	auth["Idempotency-Key"] = kassa.NewUUID()
	var created struct {
		InvoiceID string            `json:"invoice_id"`
		Headers   map[string]string `json:"payment_session_headers"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", auth, map[string]any{"amount_usd": 3}, &created), 201)
	var addr struct {
		Address    string `json:"address"`
		PaymentURI string `json:"payment_uri"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/payments/payment-address", created.Headers, map[string]any{"token_id": 1}, &addr), 200)
	if addr.Address == "" || !strings.HasPrefix(addr.PaymentURI, "ethereum:") {
		t.Fatalf("payment address %+v", addr)
	}
	pay := k.url + "/api/v1/devnet/invoices/" + created.InvoiceID + "/payments"
	var paid struct {
		Invoice struct {
			Status     string `json:"status"`
			AmountPaid int64  `json:"amount_paid"`
		} `json:"invoice"`
	}
	wantStatus(t, call(t, "POST", pay, auth, map[string]any{"amount_usd": 1}, &paid), 201)
	if paid.Invoice.Status != "underpaid" {
		t.Fatalf("after part: %+v", paid.Invoice)
	}
	wantStatus(t, call(t, "POST", pay, auth, nil, &paid), 201)
	if paid.Invoice.Status != "paid" || paid.Invoice.AmountPaid != 3000 {
		t.Fatalf("after the rest: %+v", paid.Invoice)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var inv struct {
			Payments []struct {
				Settlement string `json:"settlement_status"`
			} `json:"payments"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+created.InvoiceID+"?expand=payments", auth, nil, &inv), 200)
		settled := len(inv.Payments) == 2
		for _, p := range inv.Payments {
			settled = settled && p.Settlement == "settled"
		}
		if settled {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("receipts not settled in time: %+v", inv.Payments)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stopGracefully sends SIGTERM while a request is still being uploaded and checks the
// request is answered and the process exits cleanly.
func stopGracefully(t *testing.T, k *instance) {
	t.Helper()
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", k.url+"/api/v1/auth/login", pr)
	req.Header.Set("Content-Type", "application/json")
	got := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
			got <- nil
			return
		}
		resp.Body.Close()
		got <- resp
	}()
	fmt.Fprintf(pw, `{"email":%q,`, k.email)
	time.Sleep(200 * time.Millisecond) // the server is now reading the body
	if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	fmt.Fprintf(pw, `"password":%q}`, k.password)
	pw.Close()
	if resp := <-got; resp != nil && resp.StatusCode != 200 {
		t.Errorf("in-flight login answered %d, want 200", resp.StatusCode)
	}
	select {
	case err := <-k.exited:
		if err != nil {
			t.Errorf("kassa exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("kassa did not exit after SIGTERM")
	}
}

func TestMerchantCommands(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		if cfg.DataDir == "" {
			cfg.DataDir = t.TempDir()
		}
		out := runKassa(t, append([]string{"merchant", "create", "--name", "Acme", "--email", "ops@acme.test", "--password", "correct horse"}, storeArgs(cfg)...)...)
		var m merchantJSON
		if err := json.Unmarshal(out, &m); err != nil || m.MerchantID == 0 || m.Name != "Acme" || m.Email != "ops@acme.test" || m.MainnetEnabled {
			t.Fatalf("merchant create printed %q (%v)", out, err)
		}
		out = runKassa(t, append([]string{"merchant", "enable-mainnet", "--id", fmt.Sprint(m.MerchantID)}, storeArgs(cfg)...)...)
		if err := json.Unmarshal(out, &m); err != nil || !m.MainnetEnabled {
			t.Fatalf("enable-mainnet printed %q (%v)", out, err)
		}
		db := storetest.Open(t, cfg)
		if err := db.EnableTOTP(context.Background(), m.MerchantID, "JBSWY3DPEHPK3PXP", 1); err != nil {
			t.Fatal(err)
		}
		out = runKassa(t, append([]string{"merchant", "disable-two-step", "--id", fmt.Sprint(m.MerchantID)}, storeArgs(cfg)...)...)
		if secret, err := db.TOTPSecret(context.Background(), m.MerchantID); err != nil || secret != "" || !json.Valid(out) {
			t.Fatalf("disable-two-step printed %q, left %q (%v)", out, secret, err)
		}
	})
}

// runKassa runs a kassa command to completion and returns its stdout.
func runKassa(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(kassaBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kassa %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}
