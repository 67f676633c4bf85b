package httpx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// maxBodyBytes is the largest request body accepted; more is 413 body_too_large.
const maxBodyBytes = 1 << 20

type requestIDKey struct{}

// RequestID returns the id given to the request by ServeHTTP.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// newRequestID returns a fresh request id, "req_" and random text.
func newRequestID() string { return "req_" + kassa.RandomBase32(10) }

// statusWriter remembers the status written, for logging and panic recovery.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeHTTP is the outermost layer: request id, access log, panic recovery, body
// limits and content type, then routing with JSON 404 and 405 responses.
func (s *Core) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID()
	w.Header().Set("Request-Id", id)
	if s.hsts {
		w.Header().Set("Strict-Transport-Security", HSTSValue)
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	r = s.withEnvelope(r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))

	defer func() {
		took, status := time.Since(start), s.finalStatus(r, sw)
		s.logRequest(r, status, slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Duration("duration", took))
		if s.metrics != nil {
			s.record(r, status, took)
		}
	}()
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.LogAttrs(r.Context(), slog.LevelError, "panic in handler",
			slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Any("panic", v),
			slog.String("stack", string(debug.Stack())))
		if !sw.wrote {
			status, body := Classify(errors.New("panic"), id)
			WriteJSON(sw, status, body)
		} else {
			sw.status = http.StatusInternalServerError
		}
	}()

	if err := checkBody(r); err != nil {
		if s.metrics != nil {
			_, r.Pattern = s.mux.Handler(r) // refused before routing: still counted under its route
		}
		s.WriteError(sw, r, err)
		return
	}
	r.Body = http.MaxBytesReader(sw, r.Body, maxBodyBytes)
	s.dispatch(sw, r)
}

// checkBody refuses bodies declared too large and bodies that are not JSON.
func checkBody(r *http.Request) error {
	if r.ContentLength > maxBodyBytes {
		return ErrBodyTooLarge()
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" || r.ContentLength == 0 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/x-www-form-urlencoded" &&
		(strings.HasPrefix(r.URL.Path, "/pay/") || strings.HasPrefix(r.URL.Path, "/refund/") || strings.HasPrefix(r.URL.Path, "/dashboard/")) {
		return nil // the payment page's, the refund claim page's and the dashboard's forms, which work without JavaScript
	}
	if err != nil || mt != "application/json" {
		return ErrInvalid("", "invalid_content_type", "Content-Type must be application/json.")
	}
	return nil
}

func ErrBodyTooLarge() error {
	return &kassa.Error{Kind: kassa.KindTooLarge, Code: "body_too_large", Message: "The request body must be at most 1 MiB."}
}

// ReadBody reads the whole request body, mapping an over-long body to 413.
func ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, ErrBodyTooLarge()
		}
		return nil, ErrInvalid("", "body_unreadable", "The request body could not be read.")
	}
	return body, nil
}

// dispatch routes the request; the mux's own plain-text 404 and 405 answers are
// replaced by JSON errors.
func (s *Core) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	cw := &captureWriter{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(cw, r)
	switch cw.status {
	case http.StatusNotFound:
		NotFound(w, r)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", cw.header.Get("Allow"))
		WriteErrorStatus(w, r, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed",
			"Method "+r.Method+" is not allowed on "+r.URL.Path+".")
	default: // redirects to a cleaned path
		for k, v := range cw.header {
			w.Header()[k] = v
		}
		w.WriteHeader(cw.status)
		_, _ = w.Write(cw.body)
	}
}

// NotFound answers 404 route_not_found in the surface's JSON error body: the
// answer to an unknown URL, an unknown static asset included.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteErrorStatus(w, r, http.StatusNotFound, "not_found_error", "route_not_found",
		"Unrecognized request URL ("+r.Method+" "+r.URL.Path+").")
}

// captureWriter records a response instead of sending it.
type captureWriter struct {
	header http.Header
	status int
	wrote  bool
	body   []byte
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(code int) {
	if !c.wrote {
		c.status, c.wrote = code, true
	}
}

func (c *captureWriter) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.body = append(c.body, b...)
	return len(b), nil
}

// Health answers /healthz: liveness. It is 200 while the process serves, whatever
// the store (decisions.md): a probe that restarted instances during a store outage
// would only add restarts to it.
func (s *Core) Health(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readiness is the body of /readyz: ok, and what an operator should see to
// (a gas wallet that cannot pay for the waiting sweeps) without being unready.
type readiness struct {
	Status   string   `json:"status"`
	Warnings []string `json:"warnings,omitempty"`
}

// Ready answers /readyz: readiness. It is 503 {"status":"draining"} once the
// instance is stopping (a proxy takes it out while it still serves), 503
// {"status":"unavailable"} while the store does not answer, both with
// Retry-After like every 503; otherwise 200 with the warnings, if any.
func (s *Core) Ready(w http.ResponseWriter, r *http.Request) {
	if s.draining != nil && s.draining() {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	if s.healthCheck != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := s.healthCheck(ctx); err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "readiness check failed",
				slog.String("request_id", RequestID(r.Context())), slog.String("error", err.Error()))
			w.Header().Set("Retry-After", RetryAfterUnavailable)
			WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
	}
	body := readiness{Status: "ok"}
	if s.warnings != nil {
		body.Warnings = s.warnings()
	}
	WriteJSON(w, http.StatusOK, body)
}
