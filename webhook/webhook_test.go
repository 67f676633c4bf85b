package webhook

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// received is one request a test server got.
type received struct {
	header http.Header
	body   []byte
}

// recordingServer answers with h after recording each request on the returned
// channel.
func recordingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), body}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// publicAddr is where asPublic's connections say they go.
var publicAddr = &net.TCPAddr{IP: net.IPv4(93, 184, 216, 34), Port: 443}

// publicConn is a connection to a test server that reports a public remote
// address, as a delivery to a public host has.
type publicConn struct{ net.Conn }

func (publicConn) RemoteAddr() net.Addr { return publicAddr }

// asPublic is a client that reaches the tests' loopback servers as if they were
// public hosts: what the test fakes is the network, at the dial.
func asPublic(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return publicConn{c}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// testJob is a devnet delivery of a small event to url, already tried attempts times.
func testJob(t *testing.T, url string, attempts int, secrets ...string) *delivery.Job {
	t.Helper()
	if len(secrets) == 0 {
		secrets = []string{kassa.NewWebhookSecret()}
	}
	id := kassa.NewEventID(time.Now())
	return &delivery.Job{
		Delivery: kassa.WebhookDelivery{ID: "whd_" + id[4:], EndpointID: "we_test", Environment: kassa.Devnet,
			EventID: id, EventType: kassa.EventInvoicePaid, Attempts: attempts},
		URL: url, Secrets: secrets, Payload: []byte(`{"id":"` + id + `","type":"invoice.paid"}`), Lease: "lease",
	}
}

func TestSendSigns(t *testing.T) {
	srv, got := recordingServer(t, func(w http.ResponseWriter, _ *http.Request) {})
	current, previous := kassa.NewWebhookSecret(), kassa.NewWebhookSecret()
	tests := []struct {
		name    string
		secrets []string
	}{
		{"one secret", []string{current}},
		{"rotation", []string{current, previous}},
	}
	w := &Worker{Targets: allowPrivate}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := testJob(t, srv.URL, 2, tt.secrets...)
			for range 2 { // a retry carries the same webhook-id
				if a, res, _ := w.send(t.Context(), job); !a.Succeeded || res.StatusCode != 200 {
					t.Fatalf("attempt %+v, result %+v", a, res)
				}
				r := <-got
				if string(r.body) != string(job.Payload) {
					t.Fatalf("body %q, want %q", r.body, job.Payload)
				}
				if r.header.Get("webhook-id") != job.Delivery.EventID ||
					r.header.Get("Content-Type") != "application/json" || r.header.Get("User-Agent") != "Kassa-Webhooks/1" {
					t.Fatalf("headers %v", r.header)
				}
				if n := len(strings.Fields(r.header.Get("webhook-signature"))); n != len(tt.secrets) {
					t.Fatalf("%d signatures, want %d", n, len(tt.secrets))
				}
				for _, s := range tt.secrets {
					verify(t, s, r)
				}
			}
		})
	}
}

// verify checks r's signature with the Standard Webhooks library and secret.
func verify(t *testing.T, secret string, r received) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(r.body, r.header); err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
}

func TestSendRecords(t *testing.T) {
	long := "x" + strings.Repeat("é", 2000) // the cut at 1024 bytes falls inside a rune
	tests := []struct {
		name        string
		status      int
		body        string
		delay       time.Duration
		wantOK      bool
		wantExcerpt string
	}{
		{"ok", 200, "thanks", 0, true, "thanks"},
		{"accepted slowly", 202, "", 60 * time.Millisecond, true, ""},
		{"server error", 500, "boom", 0, false, "boom"},
		{"gone", 410, "gone", 0, false, "gone"},
		{"long body", 400, long, 0, false, long[:kassa.WebhookExcerptBytes-1]},
		{"invalid utf8 and NUL", 502, "a\xffb\x00c", 0, false, "a\uFFFDb\uFFFDc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := recordingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				time.Sleep(tt.delay)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			at := time.Now().Truncate(time.Second)
			// The same answer from a public host (the network faked at the dial)
			// and from loopback: the log keeps a body only from the public one.
			for _, target := range []struct {
				name    string
				w       *Worker
				excerpt string
			}{
				{"public", &Worker{Clients: map[kassa.Environment]*http.Client{kassa.Devnet: asPublic(t)}}, tt.wantExcerpt},
				{"loopback", &Worker{Targets: allowPrivate}, kassa.WebhookBodyNotKept},
			} {
				target.w.Now = func() time.Time { return at }
				a, res, _ := target.w.send(t.Context(), testJob(t, srv.URL, 3))
				if a.Attempt != 4 || !a.At.Equal(at) || a.StatusCode != tt.status || res.StatusCode != tt.status ||
					a.Succeeded != tt.wantOK || a.Error != "" || res.Error != "" {
					t.Fatalf("%s: attempt %+v, result %+v", target.name, a, res)
				}
				if a.ResponseExcerpt != target.excerpt || !utf8.ValidString(a.ResponseExcerpt) ||
					len(a.ResponseExcerpt) > kassa.WebhookExcerptBytes {
					t.Fatalf("%s: excerpt %q (%d bytes), want %q", target.name, a.ResponseExcerpt, len(a.ResponseExcerpt), target.excerpt)
				}
				if a.LatencyMS < tt.delay.Milliseconds() {
					t.Fatalf("%s: latency %d ms, want at least %v", target.name, a.LatencyMS, tt.delay)
				}
			}
		})
	}
}

func TestSendRetryAfter(t *testing.T) {
	now := time.Now()
	date := now.Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		status     int
		header     string
		want, slop time.Duration
	}{
		{"429 seconds", 429, "120", 2 * time.Minute, 0},
		{"503 date", 503, date, 90 * time.Second, 2 * time.Second},
		{"503 past date", 503, now.Add(-time.Hour).UTC().Format(http.TimeFormat), 0, 0},
		{"429 capped", 429, "999999999999", kassa.WebhookMaxRetryWait, 0},
		{"429 garbage", 429, "soon", 0, 0},
		{"429 negative", 429, "-5", 0, 0},
		{"429 absent", 429, "", 0, 0},
		{"500 ignored", 500, "120", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := recordingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				if tt.header != "" {
					w.Header().Set("Retry-After", tt.header)
				}
				w.WriteHeader(tt.status)
			})
			_, res, _ := (&Worker{Targets: allowPrivate}).send(t.Context(), testJob(t, srv.URL, 0))
			if res.StatusCode != tt.status || res.RetryAfter < tt.want-tt.slop || res.RetryAfter > tt.want+tt.slop {
				t.Fatalf("result %+v, want Retry-After %v ± %v", res, tt.want, tt.slop)
			}
		})
	}
}

func TestSendFailures(t *testing.T) {
	target, hits := countingServer(t, false)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusFound))
	t.Cleanup(redirect.Close)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name       string
		url        string
		targets    delivery.Targets
		env        kassa.Environment // "": devnet
		secret     string
		wantStatus int
		wantErr    string
		outcome    string
	}{
		{"redirect not followed", redirect.URL, allowPrivate, "", "", http.StatusFound, "", OutcomeHTTPOther},
		{"timeout", slow.URL, allowPrivate, "", "", 0, "timeout", OutcomeTimeout},
		{"loopback", target.URL, publicOnly, "", "", 0, "address is not allowed (loopback): webhooks reach public addresses only", OutcomeError},
		{"private", "http://10.255.255.1:9/", publicOnly, "", "", 0, "address is not allowed (private)", OutcomeError},
		{"metadata with private allowed", "http://169.254.169.254/latest", allowPrivate, "", "", 0, "address is not allowed (link-local)", OutcomeError},
		{"mainnet loopback with private allowed", target.URL, allowPrivate, kassa.Mainnet, "", 0, "address is not allowed (loopback)", OutcomeError},
		{"mainnet private with private allowed", "https://10.255.255.1:9/", allowPrivate, kassa.Mainnet, "", 0, "address is not allowed (private)", OutcomeError},
		{"bad url", "http://[::1", allowPrivate, "", "", 0, "invalid url", OutcomeError},
		{"bad secret", target.URL, allowPrivate, "", "whsec_!!", 0, "bad signing secret", OutcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Worker{timeout: 200 * time.Millisecond, Targets: tt.targets}
			job := testJob(t, tt.url, 0)
			if tt.env != "" {
				job.Delivery.Environment = tt.env
			}
			if tt.secret != "" {
				job.Secrets = []string{tt.secret}
			}
			a, res, _ := w.send(t.Context(), job)
			if a.Succeeded || res.Succeeded() || a.StatusCode != tt.wantStatus || res.StatusCode != tt.wantStatus ||
				!strings.Contains(a.Error, tt.wantErr) || res.Error != a.Error || a.Attempt != 1 {
				t.Fatalf("attempt %+v, result %+v, want status %d and error %q", a, res, tt.wantStatus, tt.wantErr)
			}
			if strings.Contains(a.Error, "http://") || strings.Contains(a.Error, "127.0.0.1") || strings.Contains(a.Error, "10.255") {
				t.Fatalf("error %q names the URL or the address", a.Error)
			}
			if got := Outcome(a); got != tt.outcome {
				t.Fatalf("outcome %q, want %q", got, tt.outcome)
			}
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("target hit %d times", hits.Load())
	}
}
