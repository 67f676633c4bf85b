package eventstream

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// Default timings of the event streams.
const (
	defaultPingInterval     = 30 * time.Second // a ping this often keeps proxies from idling the connection out
	defaultKeyCheckInterval = 5 * time.Second  // how often a stream rechecks its key or the login's credential version
	writeTimeout            = 10 * time.Second // a frame (or pong) not through within this ends the connection
)

// Config holds what the event streams use.
type Config struct {
	Core      *httpx.Core         // API key authentication, rate limits, clock and log
	Secret    []byte              // signs WebSocket tokens
	PublicURL string              // base of a token's ws_url
	Keys      kassa.APIKeyService // rechecks of the keys behind open streams
	Events    kassa.EventService  // ?since= lookups and replays
	Stream    kassa.EventStream   // live events; nil: streams answer 503
	// PingInterval is how often a stream pings its client; zero: 30 s.
	PingInterval time.Duration
	// KeyCheckInterval is how often a key-backed stream rechecks its key; zero: 5 s.
	KeyCheckInterval time.Duration
	// BeforeLiveWrite, when set (tests only), runs before each live event is written.
	BeforeLiveWrite func(r *http.Request)
}

// API mints WebSocket tokens and serves the event streams.
type API struct {
	core                        *httpx.Core
	signer                      kassa.WSTokenSigner
	publicURL                   string
	keys                        kassa.APIKeyService
	events                      kassa.EventService
	stream                      kassa.EventStream
	pingInterval, keyCheckEvery time.Duration
	beforeLiveWrite             func(r *http.Request)

	keyCheckMu sync.Mutex
	keyChecks  map[string]keyCheck // key id → latest status check of open streams
}

// New returns the event streams over cfg.
func New(cfg Config) *API {
	a := &API{core: cfg.Core, signer: kassa.NewWSTokenSigner(cfg.Secret), publicURL: cfg.PublicURL,
		keys: cfg.Keys, events: cfg.Events, stream: cfg.Stream, pingInterval: cfg.PingInterval,
		keyCheckEvery: cfg.KeyCheckInterval, beforeLiveWrite: cfg.BeforeLiveWrite, keyChecks: map[string]keyCheck{}}
	if a.pingInterval <= 0 {
		a.pingInterval = defaultPingInterval
	}
	if a.keyCheckEvery <= 0 {
		a.keyCheckEvery = defaultKeyCheckInterval
	}
	return a
}

// Close codes of the event streams, beside the standard ones: 1001 going away
// (server shutdown), 1011 internal error, 1013 try again later (the client fell
// behind; reconnect with since=<last event id>).
const (
	wsCloseExpired websocket.StatusCode = 4001 // the WebSocket token or the API key expired
	wsCloseRevoked websocket.StatusCode = 4003 // the API key was revoked, or the login's credentials changed
)

// wsTokenJSON is the data of a minted token (docs/api.md 2.7).
type wsTokenJSON struct {
	Token              string `json:"token"`
	Scope              string `json:"scope"`
	MerchantID         int64  `json:"merchant_id"`
	NetworkEnvironment string `json:"network_environment"`
	ExpiresAt          string `json:"expires_at"`
	WSURL              string `json:"ws_url"`
}

// MintToken serves POST /api/v1/ws/token {scope, ttl_seconds?}: a signed token for
// the stream of the caller's scope. scope is required and must be the key's own
// (dashboard logins are merchant scope); ttl_seconds is 60..86400, default 3600.
func (a *API) MintToken(w http.ResponseWriter, r *http.Request) error {
	p := httpx.Principal(r.Context())
	scope, ttl, err := decodeWSTokenRequest(r)
	if err != nil {
		return err
	}
	if scope != p.Scope {
		return httpx.ErrInvalid("scope", "scope_mismatch",
			"scope must match the credential: this "+credentialName(p)+" has scope "+string(p.Scope)+".")
	}
	expires := a.core.Now().Unix() + ttl
	if p.Dashboard() && p.TokenExpires < expires {
		expires = p.TokenExpires // a token lives no longer than the login it came from
	}
	exp := time.Unix(expires, 0).UTC()
	token := a.signer.Mint(kassa.WSToken{KeyID: p.KeyID, CredentialVersion: p.CredentialVersion,
		MerchantID: p.MerchantID, Environment: p.Environment, Scope: scope, ExpiresAt: exp.Unix()})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "data": wsTokenJSON{
		Token: token, Scope: string(scope), MerchantID: p.MerchantID, NetworkEnvironment: string(p.Environment),
		ExpiresAt: kassa.FormatTime(exp), WSURL: a.streamURL(scope, token),
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
	badScope := httpx.ErrInvalid("scope", "invalid_scope", "scope is required and must be merchant or commerce.")
	var scope kassa.Scope
	ttl := int64(kassa.WSTokenDefaultTTL)
	err := httpx.DecodeRequest(r, httpx.BodyOptionalBlank, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "scope":
			v, err := httpx.ReqString(f)
			if err != nil || !kassa.Scope(v).Valid() {
				return true, badScope
			}
			scope = kassa.Scope(v)
		case "ttl_seconds":
			if f.Null() {
				return true, nil
			}
			n, err := httpx.Integer(f, "invalid_ttl")
			if err != nil || n < kassa.WSTokenMinTTL || n > kassa.WSTokenMaxTTL {
				return true, httpx.ErrInvalid("ttl_seconds", "invalid_ttl", "ttl_seconds must be an integer from 60 to 86400.")
			}
			ttl = n
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return "", 0, err
	}
	if scope == "" {
		return "", 0, badScope
	}
	return scope, ttl, nil
}

// streamURL is the address of the stream of scope with token: the public URL with
// ws or wss for http or https.
func (a *API) streamURL(scope kassa.Scope, token string) string {
	base := strings.TrimRight(a.publicURL, "/")
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
