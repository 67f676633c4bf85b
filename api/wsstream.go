package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"kassa"
	"kassa/api/httpx"
)

// streamCredential is who opened a stream and until when it may stay open.
type streamCredential struct {
	p       kassa.Principal
	expires time.Time // zero: no expiry of its own
	// expiredReason is the close reason when expires passes.
	expiredReason string
}

// streamAuth authenticates a stream request: ?token= (a WebSocket token; it wins
// when both are sent) or an API key in x-api-key, x-commerce-api-key or
// Authorization: Bearer. Dashboard JWTs are not accepted here: mint a token.
func (s *server) streamAuth(r *http.Request) (streamCredential, error) {
	q := r.URL.Query()
	if q.Has("token") {
		t, err := s.wsSigner().Parse(q.Get("token"), s.Now())
		if err != nil {
			return streamCredential{}, err
		}
		c := streamCredential{
			p:       kassa.Principal{MerchantID: t.MerchantID, Environment: t.Environment, Scope: t.Scope, KeyID: t.KeyID},
			expires: time.Unix(t.ExpiresAt, 0), expiredReason: "token expired",
		}
		if t.KeyID != "" {
			// A token lives no longer than the key it was minted with.
			if _, err := s.activeKey(r.Context(), c.p); err != nil {
				return c, err
			}
		}
		return c, nil
	}
	secret := r.Header.Get("X-Api-Key")
	if secret == "" {
		secret = r.Header.Get("X-Commerce-Api-Key")
	}
	if secret == "" {
		if bearer, ok, err := httpx.BearerToken(r); err != nil {
			return streamCredential{}, err
		} else if ok && strings.HasPrefix(bearer, "kassa_") {
			secret = bearer
		} else if ok {
			return streamCredential{}, httpx.ErrUnauthenticated("invalid_credentials",
				"Event streams take a WebSocket token (?token=, from POST /api/v1/ws/token) or an API key in x-api-key; not a dashboard token.")
		}
	}
	if secret == "" {
		return streamCredential{}, httpx.ErrUnauthenticated("missing_credentials",
			"No credentials were sent: use ?token=<WebSocket token> or the x-api-key header.")
	}
	key, err := s.AuthenticateKey(r.Context(), secret)
	if err != nil {
		return streamCredential{}, err
	}
	c := streamCredential{p: kassa.Principal{MerchantID: key.MerchantID, Environment: key.Environment,
		Scope: key.Scope, KeyID: key.ID}, expiredReason: "api key expired"}
	if key.ExpiresAt != nil {
		c.expires = *key.ExpiresAt
	}
	return c, nil
}

// activeKey returns the principal's key when it is still active; a revoked,
// expired or deleted key is an authentication error.
func (s *server) activeKey(ctx context.Context, p kassa.Principal) (*kassa.APIKey, error) {
	key, err := s.cfg.Keys.APIKey(ctx, p.MerchantID, p.KeyID)
	if err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, httpx.ErrUnauthenticated("api_key_revoked", "The API key behind this credential no longer exists.")
		}
		return nil, err
	}
	switch key.Status(s.Now()) {
	case kassa.KeyRevoked:
		return key, httpx.ErrUnauthenticated("api_key_revoked", "This API key has been revoked.")
	case kassa.KeyExpired:
		return key, httpx.ErrUnauthenticated("api_key_expired", "This API key has expired.")
	}
	return key, nil
}

// keyCheck is one status check of a key, shared by the streams opened with it.
type keyCheck struct {
	err error
	at  time.Time
}

// recheckKey is activeKey for open streams: streams of one key share a check for
// half the check interval, so 10,000 streams on one key cost one query, not 10,000.
// Lookup failures other than revocation or expiry are not shared (nor fatal).
func (s *server) recheckKey(ctx context.Context, p kassa.Principal) error {
	now := time.Now()
	s.keyCheckMu.Lock()
	c, ok := s.keyChecks[p.KeyID]
	if len(s.keyChecks) > 10000 {
		clear(s.keyChecks)
	}
	s.keyCheckMu.Unlock()
	if ok && now.Sub(c.at) < wsKeyCheckInterval.get()/2 {
		return c.err
	}
	_, err := s.activeKey(ctx, p)
	if err != nil && kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
		return err
	}
	s.keyCheckMu.Lock()
	s.keyChecks[p.KeyID] = keyCheck{err: err, at: now}
	s.keyCheckMu.Unlock()
	return err
}

// isWebSocketUpgrade reports whether r asks for a WebSocket upgrade.
func isWebSocketUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
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

// eventStream serves GET /ws/{merchant,commerce}/events. Everything that can fail
// (credentials, scope, since, rate limit) is checked before the upgrade, so failures
// are ordinary JSON error responses. Then the stream subscribes to live events,
// replays what came after ?since=<event id>, and goes live; kassa.Replay says
// why nothing is missed or sent twice. Each event is one JSON text frame.
func (s *server) eventStream(scope kassa.Scope) httpx.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		cred, err := s.streamAuth(r)
		if err != nil {
			return err
		}
		p := cred.p
		if err := s.LimitGeneral(w, p); err != nil {
			return err
		}
		if p.Scope != scope {
			return httpx.ErrPermission("wrong_key_scope", "This stream needs a "+string(scope)+"-scope credential; a "+
				string(p.Scope)+"-scope one was sent (its stream is "+streamPath(p.Scope)+").")
		}
		var since *kassa.Event
		if q := r.URL.Query(); q.Has("since") {
			since, err = s.cfg.Events.Event(r.Context(), p.MerchantID, p.Environment, scope, q.Get("since"))
			if kassa.ErrorKindOf(err) == kassa.KindNotFound {
				return httpx.ErrInvalid("since", "invalid_since", "since must be the id of one of your events on this stream.")
			}
			if err != nil {
				return err
			}
		}
		if s.cfg.Stream == nil {
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
		// Any origin is accepted: streams authenticate with a token or key sent
		// explicitly, never with cookies, so a foreign page gains nothing it does not
		// already hold (no cross-site WebSocket hijacking), and API clients are often
		// not browsers at all.
		// Subscribing before the upgrade means every event committed after the
		// client sees the handshake complete reaches it.
		sub := s.cfg.Stream.Subscribe(p.MerchantID, p.Environment, p.Scope)
		defer sub.Close()
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return nil // Accept has answered the request
		}
		defer c.CloseNow()
		s.runStream(r, c, cred, sub, since)
		return nil
	}
}

// runStream sends events until the connection or the credential ends.
func (s *server) runStream(r *http.Request, c *websocket.Conn, cred streamCredential, sub kassa.Subscription, since *kassa.Event) {
	p := cred.p
	// CloseRead answers pings and close frames; its context ends when the client
	// goes away (or sends a data frame, which streams do not take).
	ctx := c.CloseRead(r.Context())

	write := func(e *kassa.Event) bool {
		b, err := e.Encode()
		if err != nil {
			s.Log().ErrorContext(ctx, "encoding an event failed", "request_id", httpx.RequestID(ctx), "error", err)
			c.Close(websocket.StatusInternalError, "internal error")
			return false
		}
		wctx, cancel := context.WithTimeout(ctx, wsWriteTimeout.get())
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b) == nil // a failed write closes the connection
	}

	var replay *kassa.Replay
	if since != nil {
		replay = kassa.ResumeAfter(s.cfg.Events, p.MerchantID, p.Environment, p.Scope, since.Pos)
		for done := false; !done; {
			var page []*kassa.Event
			var err error
			page, done, err = replay.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.Log().ErrorContext(ctx, "event stream replay failed", "request_id", httpx.RequestID(ctx), "error", err)
					c.Close(websocket.StatusInternalError, "replay failed; reconnect with since")
				}
				return
			}
			for _, e := range page {
				if !write(e) {
					return
				}
			}
		}
	}

	go func() { // keepalive
		t := time.NewTicker(wsPingInterval.get())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				pctx, cancel := context.WithTimeout(ctx, wsWriteTimeout.get())
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
		t := time.NewTimer(max(cred.expires.Sub(s.Now()), 0))
		defer t.Stop()
		expired = t.C
	}
	var keyCheck <-chan time.Time
	if p.KeyID != "" {
		t := time.NewTicker(wsKeyCheckInterval.get())
		defer t.Stop()
		keyCheck = t.C
	}
	for {
		select {
		case <-ctx.Done():
			if r.Context().Err() != nil {
				c.Close(websocket.StatusGoingAway, "server shutting down")
			}
			return
		case e, ok := <-sub.Events():
			if !ok {
				switch err := sub.Err(); {
				case errors.Is(err, kassa.ErrSlowConsumer):
					c.Close(websocket.StatusTryAgainLater, "slow consumer")
				case errors.Is(err, kassa.ErrStreamStopped):
					c.Close(websocket.StatusGoingAway, "server shutting down")
				default:
					c.Close(websocket.StatusInternalError, "stream ended")
				}
				return
			}
			if replay != nil && !replay.Fresh(e) {
				continue // already replayed
			}
			if hook := wsBeforeLiveWrite.Load(); hook != nil {
				(*hook)(r)
			}
			if !write(e) {
				return
			}
		case <-expired:
			c.Close(wsCloseExpired, cred.expiredReason)
			return
		case <-keyCheck:
			if err := s.recheckKey(ctx, p); err != nil {
				switch kassa.ErrorCode(err) {
				case "api_key_revoked":
					c.Close(wsCloseRevoked, "api key revoked")
					return
				case "api_key_expired":
					c.Close(wsCloseExpired, "api key expired")
					return
				} // a failed lookup is retried at the next check
			}
		}
	}
}
