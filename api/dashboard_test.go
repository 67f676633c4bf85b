package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// browser is a form-posting client without JavaScript: it keeps cookies and
// does not follow redirects, so each answer can be checked.
type browser struct {
	t      *testing.T
	e      *testEnv
	client *http.Client
}

func (e *testEnv) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one dashboard answer.
type page struct {
	status   int
	location string
	header   http.Header
	body     string
}

func (b *browser) do(method, path string, form url.Values, headers ...string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.srv.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), header: resp.Header, body: string(data)}
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do("GET", path, nil) }

func (b *browser) post(path string, form url.Values, headers ...string) page {
	b.t.Helper()
	return b.do("POST", path, form, headers...)
}

// want checks an answer's status and that its body holds each of texts.
func (p page) want(t *testing.T, status int, texts ...string) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d (location %q), want %d\n%.2000s", p.status, p.location, status, p.body)
	}
	for _, s := range texts {
		if !strings.Contains(p.body, s) {
			t.Fatalf("the page lacks %q\n%.3000s", s, p.body)
		}
	}
	return p
}

// signIn signs b in as m.
func (b *browser) signIn(m *merchant) {
	b.t.Helper()
	p := b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}})
	if p.status != http.StatusSeeOther || p.location != "/dashboard" {
		b.t.Fatalf("sign in: %d to %q\n%s", p.status, p.location, p.body)
	}
}

func TestDashboardSignInAndOut(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		if p := b.get("/dashboard/invoices?q=x"); p.status != http.StatusSeeOther || p.location != "/dashboard/login?next=%2Fdashboard%2Finvoices%3Fq%3Dx" {
			t.Fatalf("signed out: %d to %q", p.status, p.location)
		}
		login := b.get("/dashboard/login").want(t, 200, `name="email"`, `name="password"`, `action="/dashboard/login"`)
		if csp := login.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Fatalf("CSP %q", csp)
		}
		b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"wrong horse"}}).
			want(t, 401, "The email or password is incorrect.", `value="`+m.m.Email+`"`)
		b.post("/dashboard/login", url.Values{"email": {"nobody@example.com"}, "password": {"correct horse"}}).
			want(t, 401, "The email or password is incorrect.")

		p := b.post("/dashboard/login", url.Values{"email": {m.m.Email}, "password": {"correct horse"}, "next": {"/dashboard/invoices?q=x"}})
		cookie := p.header.Get("Set-Cookie")
		if p.status != http.StatusSeeOther || p.location != "/dashboard/invoices?q=x" || !strings.Contains(cookie, "HttpOnly") ||
			!strings.Contains(cookie, "SameSite=Lax") || !strings.Contains(cookie, "Path=/dashboard") {
			t.Fatalf("sign in: %d to %q, cookie %q", p.status, p.location, cookie)
		}
		b.get("/dashboard").want(t, 200, "Overview", "Sign out "+m.m.Email, "Test mode")
		token := regexp.MustCompile(`kassa_session=([^;]+)`).FindStringSubmatch(cookie)[1]

		if p := b.post("/dashboard/logout", url.Values{}); p.status != http.StatusSeeOther || p.location != "/dashboard/login" {
			t.Fatalf("sign out: %d to %q", p.status, p.location)
		}
		if p := b.get("/dashboard"); p.status != http.StatusSeeOther {
			t.Fatalf("after sign-out: %d", p.status)
		}
		// The old cookie is dead on the server, not only forgotten by the browser.
		stale := e.browser()
		if p := stale.do("GET", "/dashboard", nil, "Cookie: kassa_session="+token); p.status != http.StatusSeeOther {
			t.Fatalf("a signed-out token still works: %d", p.status)
		}
	})
}

func TestDashboardInvoices(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/invoices/new").want(t, 200, `name="amount_usd"`)
		// A refused amount is said in a merchant's words, not the API's JSON ones.
		for _, tc := range []struct{ amount, msg string }{
			{"abc", "Enter an amount such as 12.50."},
			{"12,50", "Enter an amount such as 12.50."},
			{"0.001", "Enter an amount from 0.01 to 1,000,000 USD."},
		} {
			p := b.post("/dashboard/invoices/new", url.Values{"amount_usd": {tc.amount}}).want(t, 400, `aria-invalid="true"`, `role="alert"`, tc.msg)
			if strings.Contains(p.body, "amount_usd must") || strings.Contains(p.body, "JSON") {
				t.Errorf("amount %q: the form shows the API's wording", tc.amount)
			}
		}
		made := b.post("/dashboard/invoices/new", url.Values{"amount_usd": {"12.50"}, "description": {"Blue mug"}, "customer_id": {"cust_7"}}).
			want(t, 201, "$12.50", "Blue mug", "http://pay.test/pay/", "session=", `src="data:image/png;base64,`, "Invoice created")
		id := regexp.MustCompile(`/pay/([0-9a-f-]{36})\?`).FindStringSubmatch(made.body)[1]
		b.post("/dashboard/invoices/new", url.Values{"amount_usd": {"3"}, "description": {"Red cup"}}).want(t, 201)

		b.get("/dashboard/invoices").want(t, 200, "Blue mug", "Red cup", `/dashboard/invoices/`+id)
		list := b.get("/dashboard/invoices?q=BLUE").want(t, 200, "Blue mug")
		if strings.Contains(list.body, "Red cup") {
			t.Fatalf("q=BLUE lists the red cup")
		}
		b.get("/dashboard/invoices?q=cust_7").want(t, 200, "Blue mug")
		if p := b.get("/dashboard/invoices?status=paid").want(t, 200, "No invoices yet."); strings.Contains(p.body, "Blue mug") {
			t.Fatalf("status=paid lists an unpaid invoice")
		}
		b.get("/dashboard/invoices?status=unpaid&created=24h").want(t, 200, "Blue mug", `value="unpaid" checked`)
		b.get("/dashboard/invoices?status=bogus").want(t, 400, "Unknown status bogus.")
		b.get("/dashboard/invoices?created=custom&created_gte=24-11-2026").want(t, 400, "start date")
		b.get("/dashboard/invoices?starting_after=not-an-id").want(t, 400)

		detail := b.get("/dashboard/invoices/"+id).want(t, 200, "Blue mug", "Invoice created", "Cancel invoice", "No payment yet.")
		if strings.Contains(detail.body, "session=") {
			t.Fatalf("the detail page shows the payment link again")
		}
		if p := b.post("/dashboard/invoices/"+id+"/cancel", url.Values{}); p.status != http.StatusSeeOther || p.location != "/dashboard/invoices/"+id {
			t.Fatalf("cancel: %d to %q", p.status, p.location)
		}
		b.get("/dashboard/invoices/"+id).want(t, 200, `badge canceled`, `(API status: canceled)" data-live="status">Canceled</span>`)
		b.post("/dashboard/invoices/"+id+"/cancel", url.Values{}).want(t, 409)
		b.get("/dashboard").want(t, 200, "Recent invoices", "Red cup")
	})
}

// TestDashboardTenancyAndOrigin: another merchant's invoice is not found, for
// reading and cancelling; cross-origin posts are refused, signed in or not.
func TestDashboardTenancyAndOrigin(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		owner, other := e.newMerchant(false), e.newMerchant(false)
		inv := owner.createInvoice(`{"amount_usd": 5, "description": "Owner's"}`)
		id := inv["invoice_id"].(string)
		b := e.browser()
		b.signIn(other)
		b.get("/dashboard/invoices/"+id).want(t, 404)
		b.post("/dashboard/invoices/"+id+"/cancel", url.Values{}).want(t, 404)
		b.get("/dashboard/invoices/not-a-uuid").want(t, 404)
		if p := b.get("/dashboard/invoices?q=" + id); strings.Contains(p.body, "Owner's") {
			t.Fatalf("search finds another merchant's invoice")
		}

		for _, h := range []string{"Origin: http://evil.example", "Sec-Fetch-Site: cross-site"} {
			b.post("/dashboard/invoices/new", url.Values{"amount_usd": {"1"}}, h).want(t, 403, "another site")
			b.post("/dashboard/logout", url.Values{}, h).want(t, 403)
			e.browser().post("/dashboard/login", url.Values{"email": {owner.m.Email}, "password": {"correct horse"}}, h).want(t, 403)
		}
		b.post("/dashboard/invoices/new", url.Values{"amount_usd": {"1"}}, "Origin: "+e.srv.URL, "Sec-Fetch-Site: same-origin").want(t, 201)
	})
}

func TestDashboardEnvironmentSwitch(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		m.createInvoice(`{"amount_usd": 5, "description": "Test money"}`)
		b := e.browser()
		b.signIn(m)
		b.post("/dashboard/environment", url.Values{"environment": {"mainnet"}}).want(t, 403, "kassa merchant enable-mainnet")
		b.post("/dashboard/environment", url.Values{"environment": {"moon"}}).want(t, 400)
		if _, err := e.db.EnableMainnet(context.Background(), m.m.ID); err != nil {
			t.Fatal(err)
		}
		p := b.post("/dashboard/environment", url.Values{"environment": {"mainnet"}, "next": {"/dashboard/invoices"}})
		if p.status != http.StatusSeeOther || p.location != "/dashboard/invoices" {
			t.Fatalf("switch: %d to %q", p.status, p.location)
		}
		live := b.get("/dashboard/invoices").want(t, 200, `value="mainnet" selected`, "No invoices yet.")
		if strings.Contains(live.body, "Test money") || strings.Contains(live.body, "Test mode") {
			t.Fatalf("mainnet shows devnet invoices or the test banner")
		}
		b.post("/dashboard/environment", url.Values{"environment": {"devnet"}, "next": {"https://evil.example/"}})
		b.get("/dashboard/invoices").want(t, 200, "Test money")
	})
}
