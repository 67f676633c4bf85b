package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"kassa"
	"kassa/stream"
)

// Timings of the event streams. They are atomics only so tests can shorten them
// while streams of earlier tests may still be winding down.
var (
	wsPingInterval     = newDuration(30 * time.Second) // a ping this often keeps proxies from idling the connection out
	wsWriteTimeout     = newDuration(10 * time.Second) // a frame (or pong) not through within this ends the connection
	wsKeyCheckInterval = newDuration(5 * time.Second)  // how often a key-backed stream rechecks its key
)

type duration struct{ v atomic.Int64 }

func newDuration(d time.Duration) *duration {
	x := &duration{}
	x.v.Store(int64(d))
	return x
}

func (d *duration) get() time.Duration  { return time.Duration(d.v.Load()) }
func (d *duration) set(v time.Duration) { d.v.Store(int64(v)) }

// wsBeforeLiveWrite, when set (tests only), runs before each live event is written.
var wsBeforeLiveWrite atomic.Pointer[func(r *http.Request)]

// Close codes of the event streams, beside the standard ones: 1001 going away
// (server shutdown), 1011 internal error, 1013 try again later (the client fell
// behind; reconnect with since=<last event id>).
const (
	wsCloseExpired websocket.StatusCode = 4001 // the WebSocket token or the API key expired
	wsCloseRevoked websocket.StatusCode = 4003 // the API key was revoked
)

// wsRoutes registers the WebSocket token endpoint and the event streams.
func (s *server) wsRoutes() {
	s.handle("POST /api/v1/ws/token", s.anyScopeAuth(s.mintWSToken))
	s.handle("GET /ws/merchant/events", s.eventStream(kassa.ScopeMerchant))
	s.handle("GET /ws/commerce/events", s.eventStream(kassa.ScopeCommerce))
}

func (s *server) wsSigner() kassa.WSTokenSigner { return kassa.NewWSTokenSigner(s.cfg.Secret) }

// wsTokenJSON is the data of a minted token (interface 2.7).
type wsTokenJSON struct {
	Token              string `json:"token"`
	Scope              string `json:"scope"`
	MerchantID         int64  `json:"merchant_id"`
	NetworkEnvironment string `json:"network_environment"`
	ExpiresAt          string `json:"expires_at"`
	WSURL              string `json:"ws_url"`
}

// mintWSToken serves POST /api/v1/ws/token {scope, ttl_seconds?}: a signed token for
// the stream of the caller's scope. scope is required and must be the key's own
// (dashboard logins are merchant scope); ttl_seconds is 60..86400, default 3600.
func (s *server) mintWSToken(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	scope, ttl, err := decodeWSTokenRequest(r)
	if err != nil {
		return err
	}
	if scope != p.Scope {
		return errInvalid("scope", "scope_mismatch",
			"scope must match the credential: this "+credentialName(p)+" has scope "+string(p.Scope)+".")
	}
	exp := time.Unix(s.now().Unix()+ttl, 0).UTC()
	token := s.wsSigner().Mint(kassa.WSToken{KeyID: p.KeyID, MerchantID: p.MerchantID,
		Environment: p.Environment, Scope: scope, ExpiresAt: exp.Unix()})
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": wsTokenJSON{
		Token: token, Scope: string(scope), MerchantID: p.MerchantID, NetworkEnvironment: string(p.Environment),
		ExpiresAt: kassa.FormatTime(exp), WSURL: s.streamURL(scope, token),
	}})
	return nil
}

func credentialName(p kassa.Principal) string {
	if p.Dashboard() {
		return "dashboard login"
	}
	return "API key"
}

// decodeWSTokenRequest reads {scope, ttl_seconds} strictly; an empty body is {}.
func decodeWSTokenRequest(r *http.Request) (kassa.Scope, int64, error) {
	body, err := readBody(r)
	if err != nil {
		return "", 0, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	fields, err := parseObject(body, "")
	if err != nil {
		return "", 0, err
	}
	badScope := errInvalid("scope", "invalid_scope", "scope is required and must be merchant or commerce.")
	var scope kassa.Scope
	ttl := int64(kassa.WSTokenDefaultTTL)
	for _, f := range fields {
		switch f.key {
		case "scope":
			v, err := reqString(f)
			if err != nil || !kassa.Scope(v).Valid() {
				return "", 0, badScope
			}
			scope = kassa.Scope(v)
		case "ttl_seconds":
			if f.null() {
				continue
			}
			n, err := integer(f, "invalid_ttl")
			if err != nil || n < kassa.WSTokenMinTTL || n > kassa.WSTokenMaxTTL {
				return "", 0, errInvalid("ttl_seconds", "invalid_ttl", "ttl_seconds must be an integer from 60 to 86400.")
			}
			ttl = n
		default:
			return "", 0, errUnknownParam(f.key)
		}
	}
	if scope == "" {
		return "", 0, badScope
	}
	return scope, ttl, nil
}

// streamURL is the address of the stream of scope with token: the public URL with
// ws or wss for http or https.
func (s *server) streamURL(scope kassa.Scope, token string) string {
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	if u, err := url.Parse(base); err == nil {
		switch u.Scheme {
		case "https":
			u.Scheme = "wss"
		case "http":
			u.Scheme = "ws"
		}
		base = u.String()
	}
	return base + streamPath(scope) + "?token=" + url.QueryEscape(token)
}

func streamPath(scope kassa.Scope) string {
	if scope == kassa.ScopeCommerce {
		return "/ws/commerce/events"
	}
	return "/ws/merchant/events"
}

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
		t, err := s.wsSigner().Parse(q.Get("token"), s.now())
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
		if bearer, ok, err := bearerToken(r); err != nil {
			return streamCredential{}, err
		} else if ok && strings.HasPrefix(bearer, "kassa_") {
			secret = bearer
		} else if ok {
			return streamCredential{}, errUnauthenticated("invalid_credentials",
				"Event streams take a WebSocket token (?token=, from POST /api/v1/ws/token) or an API key in x-api-key; not a dashboard token.")
		}
	}
	if secret == "" {
		return streamCredential{}, errUnauthenticated("missing_credentials",
			"No credentials were sent: use ?token=<WebSocket token> or the x-api-key header.")
	}
	key, err := s.authenticateKey(r.Context(), secret)
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
			return nil, errUnauthenticated("api_key_revoked", "The API key behind this credential no longer exists.")
		}
		return nil, err
	}
	switch key.Status(s.now()) {
	case kassa.KeyRevoked:
		return key, errUnauthenticated("api_key_revoked", "This API key has been revoked.")
	case kassa.KeyExpired:
		return key, errUnauthenticated("api_key_expired", "This API key has expired.")
	}
	return key, nil
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
// replays what came after ?since=<event id>, and goes live; see package stream for
// why nothing is missed or sent twice. Each event is one JSON text frame.
func (s *server) eventStream(scope kassa.Scope) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cred, err := s.streamAuth(r)
		if err != nil {
			return err
		}
		p := cred.p
		if err := apply(w, s.general, limitKey(p)); err != nil {
			return err
		}
		if p.Scope != scope {
			return errPermission("wrong_key_scope", "This stream needs a "+string(scope)+"-scope credential; a "+
				string(p.Scope)+"-scope one was sent (its stream is "+streamPath(p.Scope)+").")
		}
		var since *kassa.Event
		if q := r.URL.Query(); q.Has("since") {
			since, err = s.cfg.Events.Event(r.Context(), p.MerchantID, p.Environment, scope, q.Get("since"))
			if kassa.ErrorKindOf(err) == kassa.KindNotFound {
				return errInvalid("since", "invalid_since", "since must be the id of one of your events on this stream.")
			}
			if err != nil {
				return err
			}
		}
		if s.cfg.Stream == nil {
			writeErrorStatus(w, r, http.StatusServiceUnavailable, "api_error", "stream_unavailable",
				"Live events are not available on this server.")
			return nil
		}
		if !isWebSocketUpgrade(r) {
			w.Header().Set("Connection", "Upgrade")
			w.Header().Set("Upgrade", "websocket")
			writeErrorStatus(w, r, http.StatusUpgradeRequired, "invalid_request_error", "websocket_required",
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
		b, err := json.Marshal(e)
		if err != nil {
			s.log.ErrorContext(ctx, "encoding an event failed", "request_id", requestID(ctx), "error", err)
			c.Close(websocket.StatusInternalError, "internal error")
			return false
		}
		wctx, cancel := context.WithTimeout(ctx, wsWriteTimeout.get())
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b) == nil // a failed write closes the connection
	}

	var replay *stream.Replay
	if since != nil {
		replay = stream.ResumeAfter(s.cfg.Events, p.MerchantID, p.Environment, p.Scope, since.Pos)
		for done := false; !done; {
			var page []*kassa.Event
			var err error
			page, done, err = replay.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.ErrorContext(ctx, "event stream replay failed", "request_id", requestID(ctx), "error", err)
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
		t := time.NewTimer(max(cred.expires.Sub(s.now()), 0))
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
				case errors.Is(err, stream.ErrSlowConsumer):
					c.Close(websocket.StatusTryAgainLater, "slow consumer")
				case errors.Is(err, stream.ErrStopped):
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
			if _, err := s.activeKey(ctx, p); err != nil {
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
