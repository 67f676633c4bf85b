package api_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// newBareMerchant is a merchant with a dashboard login and no API key yet: a
// new merchant as the setup checklist sees one.
func (e *testEnv) newBareMerchant() *merchant {
	e.t.Helper()
	n := merchantCounter.Add(1)
	email := "bare" + strconv.FormatInt(n, 10) + "@example.com"
	m, err := e.db.CreateMerchant(context.Background(), kassa.MerchantCreate{Name: "Bare " + strconv.FormatInt(n, 10),
		Email: email, Password: "correct horse"})
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.do(request{method: "POST", path: "/api/v1/auth/login", body: `{"email":"` + email + `","password":"correct horse"}`})
	expectStatus(e.t, r, 200)
	return &merchant{e: e, m: m, token: r.obj(e.t)["token"].(string)}
}

// payInFull pays what the invoice still owes with the devnet payments endpoint.
func (m *merchant) payInFull(id string) {
	m.e.t.Helper()
	expectStatus(m.e.t, m.e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", headers: m.jwt()}), 201)
}

// checklist returns the setup checklist's steps as "Done"/"To do" in order, or
// nil when the overview shows none.
func checklist(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, s := range regexp.MustCompile(`<li class="(done|todo)">`).FindAllStringSubmatch(body, -1) {
		out = append(out, s[1])
	}
	return out
}

// dayRow is the chart table's row of one UTC day: invoices paid, refunded ("—"
// for no refund) and net volume.
func dayRow(day time.Time, paid int, refunded, net string) string {
	d := day.UTC().Format(time.DateOnly)
	return `<tr data-day="` + d + `"><th scope="row">` + d + `</th><td data-label="Paid invoices">` + strconv.Itoa(paid) +
		`</td><td data-label="Refunded">` + refunded + `</td><td data-label="Net volume">` + net + `</td></tr>`
}

// failingTile is the overview's failing webhooks tile with its count and parts.
func failingTile(retrying, failed int) string {
	return `id="failing-deliveries">` + strconv.Itoa(retrying+failed) + `</p><p><a href="/dashboard/developers/webhooks">` +
		strconv.Itoa(retrying) + ` retrying, ` + strconv.Itoa(failed) + ` failed in 7 days</a>`
}

// dayRows are the days the chart's table lists, in its order.
func dayRows(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr data-day="([0-9-]+)">`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDashboardOverview(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newBareMerchant()
		b := e.browser()
		b.signIn(m)

		p := b.get("/dashboard").want(t, 200, "Set up Kassa", `href="/dashboard/developers/api-keys">Create a key`,
			`href="/dashboard/invoices/new">Create a test invoice`, `role="img"`, "<title id=\"chart-title\">",
			"No paid invoices yet", "No payments or refunds in the last 30 days.", failingTile(0, 0))
		if got := strings.Join(checklist(t, p.body), ","); got != "todo,todo,todo" {
			t.Fatalf("checklist %s, want todo,todo,todo", got)
		}
		if rows := dayRows(p.body); rows != nil {
			t.Fatalf("days without money in the chart's table: %v", rows)
		}

		m.key = m.createKey(`{"name":"server"}`)["api_key"].(string)
		if got := strings.Join(checklist(t, b.get("/dashboard").body), ","); got != "done,todo,todo" {
			t.Fatalf("after a key: checklist %s", got)
		}
		hook := b.post("/dashboard/developers/webhooks", url.Values{"url": {"https://hooks.example.com/k"}, "events": {"*"}})
		if hook.status != http.StatusSeeOther {
			t.Fatalf("create endpoint: %d", hook.status)
		}
		if got := strings.Join(checklist(t, b.get("/dashboard").body), ","); got != "done,done,todo" {
			t.Fatalf("after an endpoint: checklist %s", got)
		}

		ids := []string{}
		for _, amount := range []string{"10", "5", "2.5"} {
			ids = append(ids, m.createInvoice(`{"amount_usd": ` + amount + `}`)["invoice_id"].(string))
		}
		m.payInFull(ids[0])
		m.payInFull(ids[1])
		p = b.get("/dashboard").want(t, 200, "$15.00", "2 paid invoices", dayRow(clock.Now(), 2, "—", "$15.00"),
			`<rect class="bar"`, "$15.00 in total")
		if checklist(t, p.body) != nil || strings.Contains(p.body, "Set up Kassa") {
			t.Fatalf("the checklist is still shown when every step is done")
		}
		if !regexp.MustCompile(`<h2>Open</h2><p class="big">1</p>`).MatchString(p.body) {
			t.Fatalf("open invoices: want 1\n%s", p.body)
		}

		// Disabling the endpoint fails its pending deliveries: they count for 7 days.
		b.post(hook.location+"/disable", url.Values{})
		p = b.get("/dashboard")
		failed := regexp.MustCompile(`id="failing-deliveries">(\d+)<`).FindStringSubmatch(p.body)
		if failed == nil || failed[1] == "0" {
			t.Fatalf("failing deliveries: %v", failed)
		}
		other := e.newMerchant(false)
		ob := e.browser()
		ob.signIn(other)
		if p := ob.get("/dashboard").want(t, 200, failingTile(0, 0)); dayRows(p.body) != nil {
			t.Fatalf("another merchant's days: %v", dayRows(p.body))
		}

		// Two days on: the volume is still its day's, the only row; eight days
		// on, the failed deliveries are old news.
		paidDay := clock.Now()
		clock.Advance(49 * time.Hour)
		b.signIn(m) // the session lasted 12 hours
		p = b.get("/dashboard").want(t, 200, `id="failing-deliveries">`+failed[1]+`<`, dayRow(paidDay, 2, "—", "$15.00"), "$15.00")
		if rows := dayRows(p.body); len(rows) != 1 {
			t.Fatalf("rows %v, want the paid day alone", rows)
		}
		clock.Advance(6 * 24 * time.Hour)
		b.signIn(m)
		b.get("/dashboard").want(t, 200, failingTile(0, 0))
	})
}
