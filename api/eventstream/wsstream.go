package eventstream

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// isWebSocketUpgrade reports whether r asks for a WebSocket upgrade.
func isWebSocketUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
}

// checkKey refuses in JSON a handshake websocket.Accept would refuse in plain text
// for its Sec-WebSocket-Key: missing, repeated, or not 16 bytes in base64.
func checkKey(r *http.Request) error {
	keys := r.Header.Values("Sec-WebSocket-Key")
	if len(keys) != 1 {
		return httpx.ErrInvalid("", "invalid_websocket_key", "The handshake must carry one Sec-WebSocket-Key.")
	}
	if k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(keys[0])); err != nil || len(k) != 16 {
		return httpx.ErrInvalid("", "invalid_websocket_key", "Sec-WebSocket-Key must be 16 bytes in base64.")
	}
	return nil
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// Stream serves GET /ws/{merchant,commerce}/events. Everything that can fail
// (credentials, scope, since, rate limit) is checked before the upgrade, so failures
// are ordinary JSON error responses. Then the stream subscribes to live events,
// replays what came after ?since=<event id>, and goes live; kassa.Replay says
// why nothing is missed or sent twice. Each event is one JSON text frame.
func (a *API) Stream(scope kassa.Scope) httpx.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		cred, err := a.streamAuth(r)
		if err != nil {
			return err
		}
		p := cred.p
		if err := a.core.LimitGeneral(w, r, p); err != nil {
			return err
		}
		if p.Scope != scope {
			return httpx.ErrPermission("wrong_key_scope", "This stream needs a "+string(scope)+"-scope credential; a "+
				string(p.Scope)+"-scope one was sent (its stream is "+streamPath(p.Scope)+").")
		}
		var since *kassa.Event
		if q := r.URL.Query(); q.Has("since") {
			since, err = a.events.Event(r.Context(), p.MerchantID, p.Environment, scope, q.Get("since"))
			if kassa.ErrorKindOf(err) == kassa.KindNotFound {
				return httpx.ErrInvalid("since", "invalid_since", "since must be the id of one of your events on this stream.")
			}
			if err != nil {
				return err
			}
		}
		if a.stream == nil {
			httpx.WriteErrorStatus(w, r, http.StatusServiceUnavailable, "api_error", "stream_unavailable",
				"Live events are not available on this server.")
			return nil
		}
		if !isWebSocketUpgrade(r) {
			w.Header().Set("Connection", "Upgrade")
			w.Header().Set("Upgrade", "websocket")
			httpx.WriteErrorStatus(w, r, http.StatusUpgradeRequired, "invalid_request_error", "websocket_required",
				"This is a WebSocket endpoint; connect with a WebSocket client.")
			return nil
		}
		if r.Header.Get("Sec-WebSocket-Version") != "13" {
			w.Header().Set("Sec-WebSocket-Version", "13") // RFC 6455 4.4: the versions this server speaks
			httpx.WriteErrorStatus(w, r, http.StatusUpgradeRequired, "invalid_request_error", "unsupported_websocket_version",
				"Only WebSocket version 13 is supported (Sec-WebSocket-Version: 13).")
			return nil
		}
		if err := checkKey(r); err != nil {
			return err
		}
		// Any origin is accepted: streams authenticate with a token or key sent
		// explicitly, never with cookies, so a foreign page gains nothing it does not
		// already hold (no cross-site WebSocket hijacking), and API clients are often
		// not browsers at all.
		// Subscribing before the upgrade means every event committed after the
		// client sees the handshake complete reaches it: until the stream's
		// goroutine lets go of the socket (after any replay), events wait in the
		// sink's queue.
		var hook func()
		if a.beforeLiveWrite != nil {
			hook = func() { a.beforeLiveWrite(r) }
		}
		sink := newWSSink(hook)
		defer subscribe(a.stream, p, sink)()
		// Exempt from the server's limits (net/http also clears a hijacked
		// connection's deadlines itself).
		httpx.Streaming(w)
		c, err := websocket.Accept(hijackWriter{w, sink}, r, &websocket.AcceptOptions{
			InsecureSkipVerify: true, CompressionMode: websocket.CompressionDisabled, // the frames are shared as they are
		})
		if err != nil {
			return nil // Accept has answered the request
		}
		defer c.CloseNow()
		defer a.core.WebSocketOpened(p.Scope)()
		a.runStream(r, c, cred, sink, since)
		return nil
	}
}

// runStream sends events until the connection or the credential ends. Live events
// are written by the hub's fan-out (wsSink); this goroutine writes the replay and
// whatever a socket did not take at once, and ends the stream.
func (a *API) runStream(r *http.Request, c *websocket.Conn, cred streamCredential, sink *wsSink, since *kassa.Event) {
	p := cred.p
	// CloseRead answers pings and close frames; its context ends when the client
	// goes away (or sends a data frame, which streams do not take).
	ctx := c.CloseRead(r.Context())

	if since != nil {
		replay := kassa.ResumeAfter(a.events, p.MerchantID, p.Environment, p.Scope, since.Pos)
		for done := false; !done; {
			var page []*kassa.Event
			var err error
			page, done, err = replay.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					a.core.Log().ErrorContext(ctx, "event stream replay failed", "request_id", httpx.RequestID(ctx), "error", err)
					a.abortStream(c, sink, websocket.StatusInternalError, "replay failed; reconnect with since")
				}
				return
			}
			frames, err := eventFrames(page)
			if err != nil {
				a.logEncoding(ctx, err)
				a.abortStream(c, sink, websocket.StatusInternalError, "internal error")
				return
			}
			if len(frames) > 0 && sink.writeOwned(frames) != nil {
				return // a failed write closes the connection
			}
		}
		sink.mu.Lock()
		sink.replay = replay
		sink.mu.Unlock()
	}
	// Live: write what came during the replay, then let the fan-out write.
	if !sink.drain() {
		return
	}

	go func() { // keepalive
		t := time.NewTicker(a.pingInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				pctx, cancel := context.WithTimeout(ctx, writeTimeout)
				err := c.Ping(pctx)
				cancel()
				if err != nil && ctx.Err() == nil {
					c.CloseNow() // no pong: the peer is gone
					return
				}
			}
		}
	}()

	var expired <-chan time.Time
	if !cred.expires.IsZero() {
		t := time.NewTimer(max(cred.expires.Sub(a.core.Now()), 0))
		defer t.Stop()
		expired = t.C
	}
	// Every stream rechecks its key, or the credential version of the dashboard
	// login its token was minted with.
	keyCheckTicker := time.NewTicker(a.keyCheckEvery)
	defer keyCheckTicker.Stop()
	keyCheck := keyCheckTicker.C
	for {
		select {
		case <-ctx.Done():
			if r.Context().Err() != nil {
				a.closeStream(c, sink, websocket.StatusGoingAway, "server shutting down")
			}
			return
		case <-sink.kick:
			if !sink.drainIfOwner() {
				return // a failed write closes the connection
			}
			switch err := sink.endErr(); {
			case err == nil:
			case errors.Is(err, kassa.ErrSlowConsumer):
				a.closeStream(c, sink, websocket.StatusTryAgainLater, "slow consumer")
				return
			case errors.Is(err, kassa.ErrStreamStopped):
				a.closeStream(c, sink, websocket.StatusGoingAway, "server shutting down")
				return
			case errors.Is(err, errEncoding):
				a.logEncoding(ctx, err)
				a.closeStream(c, sink, websocket.StatusInternalError, "internal error")
				return
			default:
				a.closeStream(c, sink, websocket.StatusInternalError, "stream ended")
				return
			}
		case <-expired:
			a.closeStream(c, sink, wsCloseExpired, cred.expiredReason)
			return
		case <-keyCheck:
			if err := a.recheckKey(ctx, p); err != nil {
				switch kassa.ErrorCode(err) {
				case "api_key_revoked":
					a.closeStream(c, sink, wsCloseRevoked, "api key revoked")
					return
				case "api_key_expired":
					a.closeStream(c, sink, wsCloseExpired, "api key expired")
					return
				case "token_revoked", "invalid_token":
					a.closeStream(c, sink, wsCloseRevoked, "token revoked")
					return
				} // a failed lookup is retried at the next check
			}
		}
	}
}

// closeStream ends the stream with a close frame after the events queued before
// it; no event is taken meanwhile.
func (a *API) closeStream(c *websocket.Conn, sink *wsSink, code websocket.StatusCode, reason string) {
	sink.mu.Lock()
	sink.closing = true
	sink.mu.Unlock()
	if sink.drainIfOwner() {
		c.Close(code, reason)
	}
}

// abortStream ends a stream that has not gone live (its replay failed) with a
// close frame and nothing else: live events written without the replayed ones
// before them would make the client resume after a gap.
func (a *API) abortStream(c *websocket.Conn, sink *wsSink, code websocket.StatusCode, reason string) {
	sink.mu.Lock()
	sink.closing = true
	sink.queue, sink.queued = nil, 0
	sink.owner = ownerNone // only this goroutine has written: no frame is half sent
	sink.mu.Unlock()
	c.Close(code, reason)
}

func (a *API) logEncoding(ctx context.Context, err error) {
	a.core.Log().ErrorContext(ctx, "encoding an event failed", "request_id", httpx.RequestID(ctx), "error", err)
}
