package httpx

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// StatusClientClosed is the status the access log gives a request whose client
// went away before its answer (nginx's 499): no status reached anyone.
const StatusClientClosed = 499

// AccessLog says how the access log writes requests: one line each at Level, or
// none when Off. The zero value logs at INFO.
type AccessLog struct {
	Off   bool
	Level slog.Level
}

// ParseAccessLog reads an --access-log value: on (INFO), off, or a level (debug,
// info, warn, error).
func ParseAccessLog(s string) (AccessLog, error) {
	switch strings.ToLower(s) {
	case "on":
		return AccessLog{}, nil
	case "off":
		return AccessLog{Off: true}, nil
	}
	l, err := ParseLevel(s)
	if err != nil {
		return AccessLog{}, fmt.Errorf("want on, off, debug, info, warn or error, not %q", s)
	}
	return AccessLog{Level: l}, nil
}

// ParseLevel reads a log level: debug, info, warn or error.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("want debug, info, warn or error, not %q", s)
}

// clientGone reports whether r's client went away: its context ended while the
// request was served.
func clientGone(r *http.Request) bool { return r.Context().Err() != nil }

// LogError logs err, a failure while serving r, at ERROR with msg. When the client
// went away (r's context ended) the failure is only that: it is logged at INFO as
// "client went away", never as an error of the server.
func LogError(log *slog.Logger, r *http.Request, msg string, err error) {
	level := slog.LevelError
	if clientGone(r) {
		level, msg = slog.LevelInfo, "client went away"
	}
	log.LogAttrs(r.Context(), level, msg,
		slog.String("request_id", RequestID(r.Context())), slog.String("method", r.Method),
		slog.String("path", r.URL.Path), slog.String("error", err.Error()))
}

// finalStatus is the status a served request is logged and counted with: the one
// written, or StatusClientClosed when the client went away before any answer or
// before a 5xx.
func (s *Core) finalStatus(r *http.Request, sw *statusWriter) int {
	if clientGone(r) && (!sw.wrote || sw.status >= 500) {
		return StatusClientClosed
	}
	return sw.status
}

// logRequest writes r's access log line, if the access log is on.
func (s *Core) logRequest(r *http.Request, status int, attrs ...slog.Attr) {
	if s.access.Off {
		return
	}
	s.log.LogAttrs(r.Context(), s.access.Level, "request", append(attrs[:len(attrs):len(attrs)],
		slog.Int("status", status))...)
}
