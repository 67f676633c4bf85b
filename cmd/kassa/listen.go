package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
)

// listener is a running "kassa listen": it follows the key's event stream and
// posts each event, signed like a webhook, to a local URL.
type listener struct {
	client    clientFlags
	forwardTo string
	events    []string // patterns; none: all
	secret    string
	out       io.Writer
	http      *http.Client
	last      string // id of the last event received, to resume after a reconnect
	ready     bool   // the first connection was made and announced
}

// listen runs "kassa listen --forward-to URL": like "stripe listen", it streams the
// merchant's events over the WebSocket and posts each to URL with Standard Webhooks
// signatures made with a printed whsec_ secret, so a local webhook handler can be
// developed against real events. It reconnects with since= after a drop, so no
// event is missed.
func listen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	l := &listener{out: stdout, http: &http.Client{Timeout: kassa.WebhookTimeout}}
	fs := newFlagSet("kassa listen", stderr)
	l.client.register(fs)
	fs.StringVar(&l.forwardTo, "forward-to", "", "local URL each event is posted to (required), e.g. http://localhost:4242/webhooks")
	fs.StringVar(&l.secret, "secret", envOr("KASSA_LISTEN_SECRET", ""), "whsec_ signing secret to use; default: a new one, printed (env KASSA_LISTEN_SECRET)")
	evs := fs.String("events", "*", "comma-separated event types to forward; wildcards like invoice.* work")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := l.client.check(); err != nil {
		return err
	}
	if u, err := url.Parse(l.forwardTo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("--forward-to must be an http(s) URL, e.g. http://localhost:4242/webhooks")
	}
	for _, p := range strings.Split(*evs, ",") {
		if p = strings.TrimSpace(p); p != "" && p != "*" {
			if !kassa.ValidEventPattern(p) {
				return fmt.Errorf("--events: unknown event type %q", p)
			}
			l.events = append(l.events, p)
		}
	}
	if l.secret == "" {
		l.secret = kassa.NewWebhookSecret()
	}
	if _, err := kassa.WebhookHeaders([]string{l.secret}, "x", time.Now(), nil); err != nil {
		return fmt.Errorf("--secret: %w", err)
	}
	backoff := time.Second
	for {
		started := time.Now()
		err := l.stream(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var ae *apiError
		if errors.As(err, &ae) && (ae.status == 401 || ae.status == 403) {
			return err
		}
		if time.Since(started) > time.Minute {
			backoff = time.Second
		}
		fmt.Fprintf(stderr, "stream ended (%v); reconnecting in %s\n", err, backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// streamPath is the stream of the key's scope, read from the key's form.
func (l *listener) streamPath() string {
	if strings.Contains(l.client.apiKey, "_commerce_") {
		return "/ws/commerce/events"
	}
	return "/ws/merchant/events"
}

// stream follows the event stream until it ends, forwarding each event.
func (l *listener) stream(ctx context.Context) error {
	u := l.client.url + l.streamPath()
	if l.last != "" {
		u += "?since=" + url.QueryEscape(l.last)
	}
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{
		HTTPHeader: http.Header{"X-Api-Key": {l.client.apiKey}},
	})
	if err != nil {
		if resp != nil && resp.StatusCode/100 == 4 {
			body, _ := io.ReadAll(resp.Body)
			return &apiError{status: resp.StatusCode, body: strings.TrimSpace(string(body))}
		}
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(4 << 20)
	if !l.ready {
		l.ready = true
		fmt.Fprintf(l.out, "Ready! Your webhook signing secret is %s\nForwarding events to %s (Ctrl-C to quit)\n", l.secret, l.forwardTo)
	}
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		var ev struct{ ID, Type string }
		if err := json.Unmarshal(msg, &ev); err != nil || ev.ID == "" {
			continue
		}
		l.last = ev.ID
		if len(l.events) > 0 && !kassa.MatchEventTypes(l.events, ev.Type) {
			continue
		}
		l.forward(ctx, ev.ID, ev.Type, msg)
	}
}

// forward posts one event to the local URL and prints the outcome.
func (l *listener) forward(ctx context.Context, id, typ string, payload []byte) {
	now := time.Now()
	fmt.Fprintf(l.out, "%s  --> %s [%s]\n", now.Format("2006-01-02 15:04:05"), typ, id)
	headers, _ := kassa.WebhookHeaders([]string{l.secret}, id, now, payload)
	req, err := http.NewRequestWithContext(ctx, "POST", l.forwardTo, bytes.NewReader(payload))
	if err != nil {
		fmt.Fprintf(l.out, "%s  <-- error: %v\n", now.Format("2006-01-02 15:04:05"), err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Kassa-CLI-Listen/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := l.http.Do(req)
	done := time.Now().Format("2006-01-02 15:04:05")
	if err != nil {
		fmt.Fprintf(l.out, "%s  <-- error POST %s [%s]: %v\n", done, l.forwardTo, id, err)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	fmt.Fprintf(l.out, "%s  <-- [%d] POST %s [%s]\n", done, resp.StatusCode, l.forwardTo, id)
}
