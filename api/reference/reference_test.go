package reference_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/api/reference"
)

// serve renders a document and serves the page over loopback HTTP.
func serve(t *testing.T, doc []byte) *httptest.Server {
	t.Helper()
	p, err := reference.New(doc)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /docs", p)
	mux.HandleFunc("GET /docs/assets/{hash}/{name}", p.ServeAsset)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip: the test sees what was sent
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(resp.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func sample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPageShowsTheDocument(t *testing.T) {
	srv := serve(t, sample(t))
	resp, page := get(t, srv.URL+"/docs")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		"<title>Sample 1.2.3 · API reference</title>",
		"<p>First paragraph with <code>code</code>.</p><p>Second paragraph &lt;b&gt;escaped&lt;/b&gt;.</p>", // descriptions escaped
		`<section id="tag-invoices"`, `<section id="tag-health"`, `<section id="tag-other"`,                 // tags in order, untagged last
		`<article class="op" id="getInvoice">`, `<span class="m GET">GET</span> <code class="path">/api/v1/invoices/{invoiceId}</code>`,
		`<code>invoiceId</code> <span class="req">required</span> <span class="in">path</span>`, // path-level $ref parameter
		`<td class="type">string (uuid)</td>`,
		`<code>expand</code> <span class="in">query</span>`, `One of <code>payments</code>.`,
		`<span class="status s4">404</span> <p>No such invoice.</p>`, // a $ref response
		`<a href="#schema-error">Error</a>`,
		`Request body (required)`, `<code>amount_usd</code> <span class="req">required</span>`, "Range 0.01 to …", // a $ref body
		`<td class="name d1"><code>order</code>`, "object | null", "At most 64 characters.", // nested inline object
		`<p class="label">Headers</p>`, `<code>Location</code>`,
		`Authentication: <a href="#security-ApiKey"><code>ApiKey</code></a>`, // the document's default security
		"No authentication.", // security: [] on /healthz
		"Always <code>ok</code>.",
		`id="webhook-invoice-paid"`, "one of <a href=\"#schema-invoice\">Invoice</a> | <a href=\"#schema-payment\">Payment</a>",
		`<code>ApiKey</code>: API key in the header X-Api-Key`, `<code>Bearer</code>: HTTP bearer`,
		`<article class="schema" id="schema-invoice">`, "string (date-time) | null", `array of <a href="#schema-payment">Payment</a>`,
		`<td class="name d1"><code>sku</code>`, "Pattern <code>^[0-9]+$</code>.",
		"&#34;status&#34;: &#34;unpaid&#34;", // the example, indented and escaped
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Every in-page link has its target.
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link #%s has no target", m[1])
		}
	}
}

func TestPageHeadersAndAssets(t *testing.T) {
	srv := serve(t, sample(t))
	resp, page := get(t, srv.URL+"/docs", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("no gzip for a client that accepts it")
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q: want no script at all", csp)
	}
	if strings.Contains(page, "<script") || regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) {
		t.Errorf("the page loads a script or something from another origin")
	}
	if r, _ := get(t, srv.URL+"/docs", "If-None-Match", resp.Header.Get("ETag")); r.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", r.StatusCode)
	}
	css := regexp.MustCompile(`href="(/docs/assets/[0-9a-f]+/reference.css)"`).FindStringSubmatch(page)
	if css == nil {
		t.Fatal("no stylesheet link")
	}
	tests := []struct {
		path   string
		status int
	}{
		{css[1], 200},
		{"/docs/assets/000000000000/reference.css", 404},
		{strings.Replace(css[1], "reference.css", "other.css", 1), 404},
	}
	for _, tt := range tests {
		r, body := get(t, srv.URL+tt.path)
		if r.StatusCode != tt.status {
			t.Errorf("%s: %d, want %d", tt.path, r.StatusCode, tt.status)
		}
		if tt.status == 404 && !strings.Contains(body, `"code"`) {
			t.Errorf("%s: a 404 that is not the JSON error: %s", tt.path, body)
		}
	}
}

func TestBrokenDocumentsFail(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"not JSON", "{"},
		{"unknown parameter", `{"paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}], "responses": {}}}}}`},
		{"unknown response", `{"paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Nope"}}}}}}`},
		{"unknown body", `{"paths": {"/a": {"post": {"requestBody": {"$ref": "#/components/requestBodies/Nope"}, "responses": {}}}}}`},
		{"paths not an object", `{"paths": []}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := reference.New([]byte(tt.doc)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
