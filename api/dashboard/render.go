package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"rsc.io/qr"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// files are the dashboard's templates, styles and script, built into the binary.
//
//go:embed assets
var files embed.FS

// csp allows this origin's own script, styles and images (and data: images, the
// QR codes) and nothing inline; Trusted Types guard the script's DOM writes.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"

// asset is a static file and the hash in its URL.
type asset struct {
	body, gz    []byte
	ctype, hash string
}

var assets = map[string]*asset{}

func init() {
	for name, ctype := range map[string]string{"dashboard.css": "text/css; charset=utf-8", "dashboard.js": "text/javascript; charset=utf-8"} {
		body, err := files.ReadFile("assets/" + name)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		assets[name] = &asset{body: body, gz: httpx.Gzip(body), ctype: ctype, hash: hex.EncodeToString(sum[:6])}
	}
}

// assetURL is an asset's content-hashed URL, cacheable for a year.
func assetURL(name string) string { return "/dashboard/assets/" + assets[name].hash + "/" + name }

// serveAsset serves GET /dashboard/assets/{hash}/{name}.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("name")]
	if !ok || a.hash != r.PathValue("hash") {
		httpx.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.ctype)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.WriteBody(w, r, http.StatusOK, a.body, a.gz)
}

var funcs = template.FuncMap{
	"usd":   kassa.Millis.USD,
	"time":  func(t time.Time) string { return kassa.FormatTime(t) },
	"short": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"asset": assetURL,
	"lastAttempt": func(log []kassa.WebhookAttempt) *kassa.WebhookAttempt {
		if len(log) == 0 {
			return nil
		}
		return &log[len(log)-1]
	},
	"status":            status,
	"paymentStatus":     paymentStatus,
	"paymentSettlement": paymentSettlement,
}

// templates are parsed once: each page with the layout and the parts pages
// share (assets/*.tmpl, such as refunds.tmpl: a refund as the invoice's and the
// refund's pages show it).
var templates = map[string]*template.Template{}

func init() {
	pages, err := files.ReadDir("assets")
	if err != nil {
		panic(err)
	}
	for _, p := range pages {
		// A *.tmpl holds blocks pages include (every page may).
		if name := p.Name(); strings.HasSuffix(name, ".html") && name != "layout.html" {
			templates[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files, "assets/layout.html", "assets/*.tmpl", "assets/"+name))
		}
	}
}

// page is what the layout renders around a page's content.
type page struct {
	Title    string
	Section  string // the navigation entry to mark current
	Visit    *visit // nil when signed out
	Path     string // this page, to come back to after the environment switch
	Data     any
	Mainnet  bool
	Merchant *kassa.Merchant
}

// render writes a page with the security headers of every dashboard answer.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, v *visit, data any) {
	p := page{Title: titles[name], Section: sections[name], Visit: v, Path: r.URL.RequestURI(), Data: data}
	if v != nil {
		p.Mainnet, p.Merchant = v.env() == kassa.Mainnet, v.m
	}
	var buf bytes.Buffer
	if err := templates[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		d.cfg.Log.Error("dashboard: render", "page", name, "error", err.Error())
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString(httpx.InternalMessage)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	httpx.WriteBody(w, r, status, buf.Bytes(), nil)
}

var titles = map[string]string{"login.html": "Sign in", "error.html": "Error", "overview.html": "Overview",
	"invoices.html": "Invoices", "invoice.html": "Invoice", "invoice_new.html": "New invoice", "keys.html": "API keys",
	"webhooks.html": "Webhooks", "webhook.html": "Webhook endpoint", "events.html": "Events", "reports.html": "Reports",
	"orders.html": "Orders", "order.html": "Order", "settings.html": "Settings", "login_code.html": "Sign-in code",
	"refund_new.html": "Refund", "refund.html": "Refund"}

var sections = map[string]string{"overview.html": "overview", "invoices.html": "invoices", "invoice.html": "invoices",
	"invoice_new.html": "invoices", "keys.html": "developers", "webhooks.html": "developers", "webhook.html": "developers",
	"events.html": "developers", "reports.html": "reports", "orders.html": "orders", "order.html": "orders",
	"settings.html": "settings", "refund_new.html": "invoices", "refund.html": "invoices"}

// errorView is the error page.
type errorView struct {
	Status  int
	Message string
}

// fail renders err as the error page with the status the API's error table gives it.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	status, env := httpx.Classify(err, httpx.RequestID(r.Context()))
	if status >= 500 {
		httpx.LogError(d.cfg.Log, r, "dashboard", err)
	}
	d.errorPage(w, r, v, status, env.Error.Message)
}

func (d *Dashboard) errorPage(w http.ResponseWriter, r *http.Request, v *visit, status int, msg string) {
	d.render(w, r, status, "error.html", v, errorView{Status: status, Message: msg})
}

// qrData is a data: URL of the QR code of text (a payment link).
func qrData(text string) template.URL {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(code.PNG()))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
