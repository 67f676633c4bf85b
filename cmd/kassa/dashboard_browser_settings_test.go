package main

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardBrowserSettingsAndOverview: the settings form saves the company
// name (the API reads it back); the overview shows a paid invoice in its chart and
// table after a payment on the dev chain.
func TestDashboardBrowserSettingsAndOverview(t *testing.T) {
	d := openSignedIn(t)
	d.open("/dashboard/settings", "24-settings")
	d.follow("rename the company", chromedp.SetValue(css("#company_name"), "Browser Test Shop"),
		chromedp.Click(css(`main form[action="/dashboard/settings"] button[type=submit]`)))
	d.waitFor("the settings page again", `location.pathname==="/dashboard/settings"&&document.readyState==="complete"`)
	var m struct {
		CompanyName string `json:"company_name"`
	}
	call(t, "GET", d.k.url+"/api/v1/merchant", map[string]string{"Authorization": "Bearer " + d.jwt()}, nil, &m)
	if m.CompanyName != "Browser Test Shop" {
		t.Fatalf("company name %q after saving the form", m.CompanyName)
	}
	d.check("25-settings-saved")
	payURL, _ := d.createInvoice("7.25", "Overview")
	kassaPay(t, d.k, payURL)
	d.open("/dashboard", "26-overview-paid") // kassa pay returns once the invoice is paid
	holds(t, d.ctx, "the paid invoice counted", `document.querySelector("main").textContent.indexOf("1 paid invoice")>=0`)
	holds(t, d.ctx, "a bar in the chart", `document.querySelectorAll("main svg rect.bar").length>=1`)
}

// checkout makes a devnet commerce order through the API and returns its id.
func (d *dashTab) checkout(customer string) string {
	d.t.Helper()
	return checkout(d.t, d.k, customer, firstProduct(d.t, d.k), 1)["orderId"].(string)
}

// jwt signs in through the API with the banner's credentials.
func (d *dashTab) jwt() string {
	d.t.Helper()
	var out struct{ Token string }
	wantStatus(d.t, call(d.t, "POST", d.k.url+"/api/v1/auth/login", nil,
		map[string]string{"email": d.k.email, "password": d.k.password}, &out), 200)
	return out.Token
}
