package api_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardIdleTimeout: a dashboard session that makes no request for 31
// minutes is signed out, and the sign-in page says why; one used every 20
// minutes lives on past 30 (settable clock, both engines). An open page's live
// stream is not a use.
func TestDashboardIdleTimeout(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)

		busy := e.browser()
		busy.signIn(m)
		for range 4 { // 80 minutes, a request every 20
			clock.Advance(20 * time.Minute)
			busy.get("/dashboard/invoices").want(t, 200, "Sign out "+m.m.Email)
		}

		idle := e.browser()
		idle.signIn(m)
		inv := m.createInvoice(`{"amount_usd": 5}`)["invoice_id"].(string)
		idle.get("/dashboard/invoices/"+inv).want(t, 200)
		clock.Advance(20 * time.Minute)
		// Live updates of the open page keep nothing alive: the stream opens and
		// sends its first view, and is left.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/dashboard/invoices/"+inv+"/live", nil)
		resp, err := idle.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(resp.Body).ReadString('\n')
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(first, "retry:") && !strings.HasPrefix(first, "data:") {
			t.Fatalf("the live stream: %d %q, %v", resp.StatusCode, first, err)
		}
		cancel()
		busy.get("/dashboard").want(t, 200)
		clock.Advance(11 * time.Minute)
		p := idle.get("/dashboard/invoices")
		if p.status != http.StatusSeeOther || p.location != "/dashboard/login?next=%2Fdashboard%2Finvoices&idle=1" {
			t.Fatalf("after 31 idle minutes: %d to %q", p.status, p.location)
		}
		idle.get(p.location).want(t, 200, "You were signed out after 30 minutes without activity")
		if p := idle.get("/dashboard"); p.status != http.StatusSeeOther {
			t.Fatalf("the idle session came back: %d", p.status)
		}
		busy.get("/dashboard").want(t, 200) // used 11 minutes ago: the other browser's session is its own
	})
}
