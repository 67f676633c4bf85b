package main

import (
	"log/slog"
	"net/http"
	"time"
)

// httpLimits are the HTTP server's time limits (decisions.md "Running in
// production"). Streams lift Request and Write for themselves (httpx.Streaming).
type httpLimits struct {
	Header  time.Duration // reading a request's headers
	Request time.Duration // reading a whole request, headers and body
	Write   time.Duration // writing a response, from the end of the request's headers
	Idle    time.Duration // a keep-alive connection waiting for its next request
}

// serverLimits are the limits serve applies; tests shorten them.
var serverLimits = httpLimits{Header: 10 * time.Second, Request: 60 * time.Second,
	Write: 60 * time.Second, Idle: 120 * time.Second}

// newHTTPServer returns the server of handler under limits: a client that sends
// slowly, reads slowly or idles holds a connection for a bounded time.
func newHTTPServer(handler http.Handler, limits httpLimits, log *slog.Logger) *http.Server {
	return &http.Server{Handler: handler, ReadHeaderTimeout: limits.Header, ReadTimeout: limits.Request,
		WriteTimeout: limits.Write, IdleTimeout: limits.Idle,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}
