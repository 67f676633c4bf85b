package main

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardBrowserOrders: a commerce order made through the API shows in the
// orders list and on its page; the devnet simulate button moves it to shipped
// (the page says so, with the stages on its timeline), and cancelling another
// unpaid order through its form cancels it.
func TestDashboardBrowserOrders(t *testing.T) {
	d := openSignedIn(t)
	d.open("/dashboard/orders", "19-orders-empty")
	shipped := d.checkout("cus_browser")
	unpaid := d.checkout("cus_browser_2")
	d.open("/dashboard/orders", "20-orders")
	holds(t, d.ctx, "both orders listed", `document.querySelectorAll("main tbody tr").length===2`)
	d.open("/dashboard/orders/"+shipped, "21-order")
	do(t, d.ctx, "simulate shipped", chromedp.Click(css(`main form[action$="/simulate"]:has(input[value="shipped"]) button`)),
		chromedp.WaitVisible(css("main .badge.shipped")))
	holds(t, d.ctx, "the timeline has the stages, in words",
		`["payment_confirmed","payment_settled","placed","shipped"].every(function(s){var b=document.querySelector("main .timeline .badge."+s);
			return !!b&&b.textContent.indexOf("_")<0&&b.title.indexOf("API status: "+s)>=0})`)
	d.check("22-order-shipped")
	d.open("/dashboard/orders/"+unpaid, "")
	do(t, d.ctx, "cancel", chromedp.Click(css(`main form[action$="/cancel"] button`)), chromedp.WaitVisible(css("main .badge.cancelled")))
	d.check("23-order-cancelled")
}
