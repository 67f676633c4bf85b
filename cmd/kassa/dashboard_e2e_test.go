package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardEndToEnd: the banner's dashboard link and login work on the
// built binary: sign in, make an invoice in the form, pay its link with kassa pay
// on the dev chain, and the invoice's page shows it paid with the payment.
func TestDashboardEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		cfg.DataDir = t.TempDir()
		k := startKassa(t, cfg)
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
		send := func(method, path string, form url.Values) (int, string) {
			t.Helper()
			var body io.Reader
			if form != nil {
				body = strings.NewReader(form.Encode())
			}
			req, _ := http.NewRequest(method, k.url+path, body)
			if form != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if status, body := send("GET", "/dashboard", nil); status != 200 || !strings.Contains(body, `action="/dashboard/login"`) {
			t.Fatalf("the banner's link signed out: %d\n%s", status, body)
		}
		status, body := send("POST", "/dashboard/login", url.Values{"email": {k.email}, "password": {k.password}})
		if status != 200 || !strings.Contains(body, "Overview") {
			t.Fatalf("sign in: %d\n%.1000s", status, body)
		}
		status, body = send("POST", "/dashboard/invoices/new", url.Values{"amount_usd": {"4.20"}, "description": {"Dashboard e2e"}})
		link := regexp.MustCompile(`value="(http://[^"]+/pay/[^"]+)"`).FindStringSubmatch(body)
		if status != 201 || link == nil {
			t.Fatalf("new invoice: %d\n%.2000s", status, body)
		}
		payURL := strings.ReplaceAll(link[1], "&amp;", "&")
		id := regexp.MustCompile(`/pay/([0-9a-f-]{36})`).FindStringSubmatch(payURL)[1]
		kassaPay(t, k, payURL)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			status, body = send("GET", "/dashboard/invoices/"+id, nil)
			if status == 200 && strings.Contains(body, "badge paid") && strings.Contains(body, "devchain") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the invoice page never showed the payment: %d\n%.3000s", status, body)
			}
		}
		if status, body := send("GET", "/dashboard/invoices?q="+id, nil); status != 200 || !strings.Contains(body, "Dashboard e2e") {
			t.Fatalf("search by id: %d", status)
		}
	})
}
