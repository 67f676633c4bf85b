package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
)

// testLimits are short server limits: every limit is reached well within a test.
var testLimits = httpLimits{Header: time.Second, Request: time.Second, Write: time.Second, Stall: time.Second, Idle: time.Second}

// pastLimits is how long a test waits to be past every limit of testLimits.
const pastLimits = 3 * time.Second

// limited is serve --dev running under short limits.
type limited struct {
	url, key, email, password string
}

// serveLimited runs serve --dev under limits on SQLite.
func serveLimited(t *testing.T, limits httpLimits) limited {
	t.Helper()
	serverLimits = limits
	t.Cleanup(func() { serverLimits = defaultLimits })
	// The demo login's bcrypt at the cheapest cost: at the default one, under the
	// race detector on a loaded machine, signing in outlasted the 1 s write limit
	// and the server closed the connection (the client saw EOF).
	openStore = func(ctx context.Context, c store.Config) (*store.DB, error) {
		c.PasswordCost = bcrypt.MinCost
		return store.Open(ctx, c)
	}
	t.Cleanup(func() { openStore = store.Open })
	out, _ := runServe(t, append([]string{"--dev", "--devchain=false"}, storeArgs(store.Config{DataDir: t.TempDir()})...)...)
	var l limited
	for re, dst := range map[string]*string{`kassa listening on (\S+)`: &l.url, `merchant key:\s+(\S+)`: &l.key,
		`login email:\s+(\S+)`: &l.email, `login password:\s+(\S+)`: &l.password} {
		m := regexp.MustCompile(re).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no %s in:\n%s", re, out.String())
		}
		*dst = m[1]
	}
	l.url = "http://" + l.url
	return l
}

// defaultLimits are serve's limits, restored after each test.
var defaultLimits = serverLimits

// dialRaw opens a TCP connection to the server at base.
func dialRaw(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServerLimits runs serve with short limits: a body sent at a trickle is cut
// off, an idle keep-alive connection is closed, and the event streams (WebSocket
// and the payment page's Server-Sent Events) stay open past every limit.
func TestServerLimits(t *testing.T) {
	k := serveLimited(t, testLimits)
	t.Run("slow body", func(t *testing.T) {
		c := dialRaw(t, k.url)
		const size = 2000 // at 20 ms a byte: 40 s, forty times the limit
		if _, err := io.WriteString(c, "POST /api/v1/auth/login HTTP/1.1\r\nHost: kassa\r\nContent-Type: application/json\r\n"+
			"Content-Length: 2000\r\n\r\n{"); err != nil {
			t.Fatal(err)
		}
		answered := make(chan string, 1)
		go func() {
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				line = err.Error()
			}
			answered <- line
		}()
		for sent := 1; sent < size; sent++ {
			select {
			case a := <-answered:
				t.Logf("cut off after %d of %d bytes: %q", sent, size, strings.TrimSpace(a))
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := io.WriteString(c, " "); err != nil {
				t.Logf("cut off after %d of %d bytes: %v", sent, size, err)
				return
			}
		}
		t.Fatalf("the whole body went through at a trickle, %v over the limit", 40*time.Second-testLimits.Request)
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dialRaw(t, k.url)
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: kassa\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("an idle keep-alive connection: read %v, want EOF (closed by the server)", err)
		}
	})
	t.Run("streams", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(k.url, "http")+"/ws/merchant/events",
			&websocket.DialOptions{HTTPHeader: http.Header{"X-Api-Key": {k.key}}})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		payURL, id := limitedInvoice(t, k)
		u, err := url.Parse(payURL)
		if err != nil {
			t.Fatal(err)
		}
		page := openEvents(t, ctx, http.DefaultClient, k.url+"/pay/"+id+"/events?"+u.RawQuery)
		jar, _ := cookiejar.New(nil)
		signedIn := &http.Client{Jar: jar}
		resp, err := signedIn.PostForm(k.url+"/dashboard/login", url.Values{"email": {k.email}, "password": {k.password}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		dash := openEvents(t, ctx, signedIn, k.url+"/dashboard/invoices/"+id+"/live")
		if _, _, err := ws.Read(ctx); err != nil { // invoice.created
			t.Fatalf("WebSocket: %v", err)
		}
		time.Sleep(pastLimits)
		call(t, "POST", k.url+"/api/v1/invoices/"+id+"/cancel", map[string]string{"x-api-key": k.key}, nil, nil)
		for name, next := range map[string]func() string{"payment page": page, "dashboard": dash} {
			if d := next(); !strings.Contains(d, "cancel") {
				t.Errorf("%s events after the limits: %s", name, d)
			}
		}
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("WebSocket after the limits: %v", err)
		}
		if !strings.Contains(string(b), "cancel") {
			t.Errorf("WebSocket after the limits: %s", b)
		}
	})
}

// openEvents opens the Server-Sent Events at url, reads the first data line and
// returns a function that reads the next one.
func openEvents(t *testing.T, ctx context.Context, c *http.Client, url string) func() string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	next := func() string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("events of %s: %v", url, err)
			}
			if strings.HasPrefix(line, "data: ") {
				return line
			}
		}
	}
	next()
	return next
}

// limitedInvoice creates a $1 invoice and returns its payment URL and id.
func limitedInvoice(t *testing.T, k limited) (string, string) {
	t.Helper()
	var out struct {
		PaymentURL string `json:"payment_url"`
		InvoiceID  string `json:"invoice_id"`
	}
	h := map[string]string{"x-api-key": k.key, "Idempotency-Key": kassa.NewUUID()}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", h, map[string]any{"amount_usd": 1}, &out), 201)
	return out.PaymentURL, out.InvoiceID
}

// TestServerCutsANonReadingClient: a client that asks for a large response and
// never reads it holds the server's handler no longer than the write limit: the
// handler's write fails and it returns.
func TestServerCutsANonReadingClient(t *testing.T) {
	written := make(chan int64, 1)
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		var n int64
		for {
			k, err := w.Write(chunk)
			n += int64(k)
			if err != nil {
				written <- n
				return
			}
		}
	}), testLimits, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	c := dialRaw(t, "http://"+ln.Addr().String())
	if _, err := io.WriteString(c, "GET /big HTTP/1.1\r\nHost: kassa\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-written:
		t.Logf("the handler gave up after %d MiB unread", n>>20)
	case <-time.After(time.Minute):
		t.Fatal("the handler is still writing to a client that never reads")
	}
}
