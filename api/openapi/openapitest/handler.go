package openapitest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strings"
)

// Skipped reports whether path is one of the HTML pages for browsers the document
// does not describe: the hosted payment page (/pay/..., with its form posts, QR
// code and event stream), the refund claim page (/refund/...), the static token
// icons, the merchant dashboard and the API reference page rendered from the
// document itself (/docs).
func Skipped(path string) bool {
	return strings.HasPrefix(path, "/pay/") || strings.HasPrefix(path, "/refund/") || strings.HasPrefix(path, "/static/") ||
		path == "/dashboard" || strings.HasPrefix(path, "/dashboard/") ||
		path == "/docs" || strings.HasPrefix(path, "/docs/")
}

// Handler returns h with every exchange but those of Skipped paths checked; each
// problem is reported to fail (t.Errorf). The check runs before the response is
// complete, so it is done by the time a client has read the answer; a WebSocket
// handshake is checked when it writes 101, before the client sees it.
func (c *Checker) Handler(h http.Handler, fail func(format string, args ...any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Skipped(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		var reqBody bytes.Buffer
		body := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(body, &reqBody), body}
		rec := &recorder{w: w}
		check := func() {
			rest, _ := io.ReadAll(body) // what the handler left unread (it refused the request early)
			reqBody.Write(rest)
			for _, p := range c.Check(Exchange{Request: r, RequestBody: reqBody.Bytes(), Status: rec.status,
				Header: rec.header, Body: rec.decoded()}) {
				fail("openapi: %s", p)
			}
		}
		rec.onSwitch = check
		h.ServeHTTP(rec, r)
		if !rec.wrote {
			rec.WriteHeader(http.StatusOK)
		}
		if rec.status != http.StatusSwitchingProtocols {
			check()
		}
	})
}

// recorder passes a response through and keeps a copy: the status, the headers as
// they were sent and the body.
type recorder struct {
	w        http.ResponseWriter
	status   int
	header   http.Header
	body     bytes.Buffer
	wrote    bool
	onSwitch func() // runs when the handler switches protocols, before the 101 is sent
}

func (r *recorder) Header() http.Header { return r.w.Header() }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.header, r.wrote = code, r.w.Header().Clone(), true
		if code == http.StatusSwitchingProtocols && r.onSwitch != nil {
			r.onSwitch()
		}
	}
	r.w.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	r.body.Write(b)
	return r.w.Write(b)
}

// Unwrap lets http.ResponseController (flushes, deadlines) and WebSocket upgrades
// reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

// Hijack is reached through Unwrap too; it is here for callers that type-assert.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(r.w).Hijack()
}

// decoded is the body as the client reads it: gunzipped when it was sent gzipped.
func (r *recorder) decoded() []byte {
	if r.header.Get("Content-Encoding") != "gzip" {
		return r.body.Bytes()
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body.Bytes()))
	if err != nil {
		return r.body.Bytes()
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return r.body.Bytes()
	}
	r.header.Del("Content-Encoding")
	return b
}
