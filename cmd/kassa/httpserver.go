package main

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kassapay/kassa/api/httpx"
)

// httpLimits are the HTTP server's time limits (decisions.md "Running in
// production"). Streams lift Request and Write for themselves (httpx.Streaming).
type httpLimits struct {
	Header  time.Duration // reading a request's headers
	Request time.Duration // reading a whole request, headers and body
	Write   time.Duration // writing a response, from the end of the request's headers
	Stall   time.Duration // a response's write making no progress (within Write)
	Idle    time.Duration // a keep-alive connection waiting for its next request
}

// serverLimits are the limits serve applies; tests shorten them. Stall is the
// streams' own limit on one write, so a client that stops reading is cut after
// the same time whatever it asked for, and a stream is no more limited than before.
var serverLimits = httpLimits{Header: 10 * time.Second, Request: 60 * time.Second,
	Write: 60 * time.Second, Stall: httpx.StreamWriteTimeout, Idle: 120 * time.Second}

// newHTTPServer returns the server of handler under limits: a client that sends
// slowly, reads slowly or idles holds a connection for a bounded time.
func newHTTPServer(handler http.Handler, limits httpLimits, log *slog.Logger) *http.Server {
	return &http.Server{Handler: handler, ReadHeaderTimeout: limits.Header, ReadTimeout: limits.Request,
		WriteTimeout: limits.Write, IdleTimeout: limits.Idle,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

// serverListener is ln as the server accepts from it: connections capped per
// client address, each of whose response writes fails after limits.Stall
// without progress.
func serverListener(ln net.Listener, limits httpLimits, perAddress connCap, log *slog.Logger) net.Listener {
	return limitStalls(limitPerAddress(ln, perAddress, log), limits.Stall)
}
