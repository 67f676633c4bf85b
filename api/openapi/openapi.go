// Package openapi holds the OpenAPI 3.1 document of Kassa's HTTP API
// (openapi.json, embedded) and serves it at GET /api/v1/openapi.json.
//
// The document is the source of truth of the API: every route under /api, the
// WebSocket handshakes, /healthz, /readyz and /metrics, every status each answers
// with its body, the error bodies and codes, the security schemes and the webhook
// payloads. It is edited by hand as JSON. The api package's tests check every
// request and response they exchange against it and fail on anything it does not
// describe (package openapitest), and check that it lists exactly the routes of
// api/routes.go.
package openapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/kassapay/kassa/api/httpx"
)

// Document is the OpenAPI document, as JSON.
//
//go:embed openapi.json
var Document []byte

var (
	// gzipped is Document compressed once, for clients that accept gzip.
	gzipped = httpx.Gzip(Document)
	// etag is a weak validator of Document, the same for both encodings.
	etag = func() string {
		sum := sha256.Sum256(Document)
		return `W/"` + hex.EncodeToString(sum[:12]) + `"`
	}()
)

// Serve answers GET /api/v1/openapi.json: the document, gzipped when the client
// accepts it, cacheable for five minutes and revalidated with its ETag (304 when
// If-None-Match names it). No authentication: the document holds no secrets.
func Serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	if matches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	httpx.WriteBody(w, r, http.StatusOK, Document, gzipped)
}

// matches reports whether an If-None-Match header names tag, by the weak
// comparison RFC 9110 asks of If-None-Match (W/ is ignored on both sides).
func matches(header, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}
