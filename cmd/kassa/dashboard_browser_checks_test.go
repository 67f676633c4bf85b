package main

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa/store/storetest"
)

// dashTab is one browser tab on a running kassa, signed in or not, that keeps
// every console message, uncaught exception and CSP violation of its pages.
type dashTab struct {
	t   *testing.T
	ctx context.Context
	k   *instance

	mu       sync.Mutex
	problems []string // console errors, exceptions and CSP violations not yet reported

	marks    chan string // the settle marks the console listener saw, in order
	lastMark int         // the number of the last settle mark logged
}

// settleMark starts a console message that settle logs and the listener waits for.
const settleMark = "kassa-test-settled-"

// openDashboard starts kassa (SQLite) and a browser that reports what pages
// write to the console. Every page gets a listener that turns a
// securitypolicyviolation into a console error, and window.confirm answers yes
// (noting the question in sessionStorage.confirmed).
func openDashboard(t *testing.T) *dashTab {
	t.Helper()
	ctx := browser(t)
	d := &dashTab{t: t, ctx: ctx, k: startKassa(t, storetest.SQLiteConfig(t)), marks: make(chan string, 16)}
	beforeScripts(t, ctx, `document.addEventListener("securitypolicyviolation",function(e){
		console.error("CSP violation: "+e.violatedDirective+" blocked "+e.blockedURI+" at "+e.sourceFile+":"+e.lineNumber)});
		window.confirm=function(m){sessionStorage.setItem("confirmed",m);return true}`)
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleInfo && strings.HasPrefix(m.Text, settleMark) {
				d.marks <- m.Text
				continue
			}
			if m.Type != chromedp.ConsoleError && !m.IsException() && !strings.Contains(m.Text, "Content Security Policy") {
				continue
			}
			// A page's own status (401 for a wrong password, 400 for a bad
			// form) is logged as a network error: the tests check statuses.
			if m.Source == "network" && strings.HasPrefix(m.URL, d.k.url+"/dashboard") && !strings.Contains(m.URL, "/dashboard/assets/") {
				continue
			}
			d.mu.Lock()
			d.problems = append(d.problems, m.String()+" ("+m.URL+")")
			d.mu.Unlock()
		}
	}()
	do(t, ctx, "start the browser", chromedp.Navigate("about:blank"))
	return d
}

// openSignedIn is openDashboard's tab, signed in through the form.
func openSignedIn(t *testing.T) *dashTab {
	t.Helper()
	d := openDashboard(t)
	d.signIn()
	return d
}

// path is the address of a dashboard path on this kassa.
func (d *dashTab) path(p string) string { return d.k.url + p }

// open navigates to a dashboard path and checks the page.
func (d *dashTab) open(p, shot string) {
	d.t.Helper()
	do(d.t, d.ctx, "open "+p, chromedp.Navigate(d.path(p)), chromedp.WaitReady(css("main")))
	d.check(shot)
}

// signIn signs in with the banner's email and password through the form.
func (d *dashTab) signIn() {
	d.t.Helper()
	do(d.t, d.ctx, "sign in", chromedp.Navigate(d.path("/dashboard/login")), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), d.k.email), chromedp.SendKeys(css("#password"), d.k.password),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("header.top")))
}

// at fails unless the page's path (and query, when want has one) is want.
func (d *dashTab) at(want string) {
	d.t.Helper()
	loc := get(d.t, d.ctx, "location", chromedp.Location())
	u, err := url.Parse(loc)
	if err != nil {
		d.t.Fatal(err)
	}
	got := u.Path
	if strings.Contains(want, "?") {
		got = u.RequestURI()
	}
	if got != want {
		d.t.Fatalf("at %s, want %s", loc, want)
	}
}

// check runs the checks every dashboard page must pass: no console errors,
// exceptions or CSP violations so far, Tab reaches the skip link first and then
// the header's links in order, readable text (contrast 4.5:1 or more), nothing
// wider than a 375 px window; then it keeps the screenshots named shotName (KASSA_SCREENSHOTS), unless "".
func (d *dashTab) check(shotName string) {
	d.t.Helper()
	d.keyboardOrder()
	bad := get(d.t, d.ctx, "contrast", chromedp.Evaluate[[]string](lowContrastJS))
	for _, b := range bad {
		d.t.Errorf("%s: contrast below 4.5:1: %s", shotName, b)
	}
	viewport(d.t, d.ctx, 375, 800)
	if w := get(d.t, d.ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 375 {
		wide := get(d.t, d.ctx, "what sticks out", chromedp.Evaluate[[]string](`Array.prototype.filter.call(document.querySelectorAll("body *"),
			function(e){return e.getBoundingClientRect().right>375}).map(function(e){return e.tagName+"."+e.className})`))
		d.t.Errorf("%s: at 375 px the page is %d px wide (it scrolls sideways): %v", shotName, w, wide)
	}
	do(d.t, d.ctx, "reset viewport", chromedp.ResetViewport())
	if shotName != "" {
		shot(d.t, d.ctx, shotName)
	}
	d.noProblems(shotName)
}

// settle returns once every console message the page wrote so far has reached the
// listener: it logs a mark from a task queued behind the page's own (a CSP
// violation's event among them) and waits for the listener to see it, since the
// browser reports a page's console messages in the order they were written.
func (d *dashTab) settle() {
	d.t.Helper()
	d.lastMark++
	mark := settleMark + strconv.Itoa(d.lastMark)
	do(d.t, d.ctx, "mark the console", chromedp.Evaluate[chromedp.Void](`setTimeout(function(){console.info("`+mark+`")},0)`))
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-d.marks:
			if m == mark {
				return
			}
		case <-deadline:
			d.t.Fatalf("the console listener did not see %s within 10 s", mark)
		}
	}
}

// noProblems fails the test with the console errors, exceptions and CSP
// violations reported since the last call.
func (d *dashTab) noProblems(where string) {
	d.t.Helper()
	d.settle()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.problems {
		d.t.Errorf("%s: %s", where, p)
	}
	d.problems = nil
}

// keyboardOrder presses Tab from the top of the page: the skip link takes the
// focus first, then each link of the header (brand and sections) in turn.
func (d *dashTab) keyboardOrder() {
	d.t.Helper()
	n := get(d.t, d.ctx, "focus from the top", chromedp.Evaluate[int](`(function(){
		if(document.activeElement)document.activeElement.blur();window.getSelection().collapse(document.body,0);
		window.__tabOrder=[document.querySelector("a.skip")].concat(Array.prototype.slice.call(document.querySelectorAll("header.top a")));
		return window.__tabOrder.length})()`))
	for i := 0; i < n; i++ {
		do(d.t, d.ctx, "Tab", chromedp.KeyEvent("\t"))
		if !get(d.t, d.ctx, "focus", chromedp.Evaluate[bool](`document.activeElement===window.__tabOrder[`+strconv.Itoa(i)+`]`)) {
			d.t.Errorf("Tab %d focuses %s, want %s", i+1,
				get(d.t, d.ctx, "focused", chromedp.Evaluate[string](`document.activeElement.outerHTML.slice(0,80)`)),
				get(d.t, d.ctx, "expected", chromedp.Evaluate[string](`window.__tabOrder[`+strconv.Itoa(i)+`].outerHTML.slice(0,80)`)))
			return
		}
	}
	do(d.t, d.ctx, "unfocus", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
}

// lowContrastJS lists the visible elements whose own text has a contrast below
// 4.5:1 against the background it is drawn on.
const lowContrastJS = `(function(){` + contrastJS + `
  var bad=[], all=document.body.querySelectorAll("*");
  for (var i=0;i<all.length;i++) {
    var el=all[i], own=false;
    if (/^(SCRIPT|STYLE|SELECT|OPTION|TEMPLATE)$/.test(el.tagName)) continue;
    for (var c=el.firstChild;c;c=c.nextSibling) if (c.nodeType===3&&c.textContent.trim()) { own=true; break; }
    if (!own) continue;
    var r=el.getBoundingClientRect();
    if (r.width<2||r.height<2||r.right<=0||r.bottom<=0||getComputedStyle(el).visibility!=="visible") continue;
    var k=contrast(el);
    if (k<4.5) bad.push(el.tagName.toLowerCase()+(el.className?"."+el.className:"")+" "+JSON.stringify(el.textContent.trim().slice(0,40))+" "+k.toFixed(2));
  }
  return bad})()`
