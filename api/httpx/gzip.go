package httpx

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
)

// Gzip compresses b at the best compression (pages and static assets are small
// and compressed once per answer, or once per process for assets).
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// WriteBody writes status and body, gzipped when the client accepts gzip: gz is
// body already compressed (a static asset), or nil to compress it now.
func WriteBody(w http.ResponseWriter, r *http.Request, status int, body, gz []byte) {
	w.Header().Add("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		if gz == nil {
			gz = Gzip(body)
		}
		w.Header().Set("Content-Encoding", "gzip")
		body = gz
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
