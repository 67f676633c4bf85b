package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

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
