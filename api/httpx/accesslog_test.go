package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logged serves one request to GET /x, answered by h, on a real loopback server
// with access log cfg; cancel, when set, cancels the request once h has started.
// It returns what was logged once the request was served.
func logged(t *testing.T, access AccessLog, h Func, cancel bool) string {
	t.Helper()
	var out syncBuffer
	core := NewCore(CoreConfig{AccessLog: access,
		Logger: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	started, served := make(chan struct{}), make(chan struct{})
	core.Handle("GET /x", func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		return h(w, r)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(served)
		core.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	if cancel {
		stop()
	}
	<-served
	return out.String()
}

// TestAccessLogAndCancellations: a request its client cancelled is logged as the
// client going away (499 in the access log), never as an internal error; a real
// failure still is one; the access log can be turned off or moved to a level.
func TestAccessLogAndCancellations(t *testing.T) {
	// waitGone is a handler that waits for the client to leave and fails as a store
	// call would then.
	waitGone := func(w http.ResponseWriter, r *http.Request) error {
		<-r.Context().Done()
		return fmt.Errorf("store: list invoices: %w", r.Context().Err())
	}
	ok := func(w http.ResponseWriter, r *http.Request) error {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}
	boom := func(w http.ResponseWriter, r *http.Request) error { return errors.New("boom") }
	for _, c := range []struct {
		name       string
		access     AccessLog
		h          Func
		cancel     bool
		want, none []string
	}{
		{"client cancelled", AccessLog{}, waitGone, true,
			[]string{`level=INFO msg="client went away"`, "context canceled", "level=INFO msg=request", "status=499"},
			[]string{"level=ERROR", "internal error", "status=500"}},
		{"internal error", AccessLog{}, boom, false,
			[]string{`level=ERROR msg="internal error"`, "error=boom", "status=500"}, []string{"client went away", "status=499"}},
		{"access log on", AccessLog{}, ok, false, []string{"level=INFO msg=request", "path=/x", "status=200"}, nil},
		{"access log off", AccessLog{Off: true}, ok, false, nil, []string{"msg=request", "path=/x"}},
		{"access log at warn", AccessLog{Level: slog.LevelWarn}, ok, false, []string{"level=WARN msg=request"}, []string{"level=INFO"}},
		{"access log off, client cancelled", AccessLog{Off: true}, waitGone, true,
			[]string{`msg="client went away"`}, []string{"msg=request", "level=ERROR"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := logged(t, c.access, c.h, c.cancel)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("log lacks %q:\n%s", w, out)
				}
			}
			for _, n := range c.none {
				if strings.Contains(out, n) {
					t.Errorf("log has %q:\n%s", n, out)
				}
			}
		})
	}
}

// TestParseAccessLog: on, off and the four levels, in any case; anything else is
// refused.
func TestParseAccessLog(t *testing.T) {
	for _, c := range []struct {
		in   string
		want AccessLog
		bad  bool
	}{
		{"on", AccessLog{}, false},
		{"OFF", AccessLog{Off: true}, false},
		{"debug", AccessLog{Level: slog.LevelDebug}, false},
		{"warn", AccessLog{Level: slog.LevelWarn}, false},
		{"Error", AccessLog{Level: slog.LevelError}, false},
		{"verbose", AccessLog{}, true},
		{"", AccessLog{}, true},
	} {
		got, err := ParseAccessLog(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseAccessLog(%q) = %+v, %v; want %+v, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}
