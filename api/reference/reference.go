// Package reference serves /docs: the API reference page, rendered by Kassa
// itself from its OpenAPI document. The page is built once at start, is plain
// HTML with one stylesheet from this origin, and needs no script and no CDN.
package reference

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"

	"github.com/kassapay/kassa/api/httpx"
)

//go:embed assets
var files embed.FS

// csp allows this origin's stylesheet and nothing else: the page has no script.
const csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Page is the rendered reference page and its stylesheet.
type Page struct {
	html, htmlGz []byte
	etag         string
	css, cssGz   []byte
	cssHash      string
}

var tmpl = template.Must(template.New("reference.html").ParseFS(files, "assets/reference.html"))

// New renders the page of an OpenAPI 3.1 document (JSON). A document the page
// cannot read (a broken $ref, a malformed operation) is an error.
func New(doc []byte) (*Page, error) {
	var d document
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	v, err := build(&d)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	css, err := files.ReadFile("assets/reference.css")
	if err != nil {
		return nil, err
	}
	p := &Page{css: css, cssGz: httpx.Gzip(css), cssHash: hash(css)}
	v.CSS = "/docs/assets/" + p.cssHash + "/reference.css"
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return nil, err
	}
	p.html, p.htmlGz, p.etag = buf.Bytes(), httpx.Gzip(buf.Bytes()), `"`+hash(buf.Bytes())+`"`
	return p, nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// ServeHTTP serves GET /docs.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", p.etag)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == p.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	httpx.WriteBody(w, r, http.StatusOK, p.html, p.htmlGz)
}

// ServeAsset serves GET /docs/assets/{hash}/{name}: the stylesheet, cacheable
// for a year under its content hash.
func (p *Page) ServeAsset(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("name") != "reference.css" || r.PathValue("hash") != p.cssHash {
		httpx.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	httpx.WriteBody(w, r, http.StatusOK, p.css, p.cssGz)
}
