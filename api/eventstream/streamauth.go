package eventstream

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
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
func (a *API) streamAuth(r *http.Request) (streamCredential, error) {
	q := r.URL.Query()
	if q.Has("token") {
		t, err := a.signer.Parse(q.Get("token"), a.core.Now())
		if err != nil {
			return streamCredential{}, err
		}
		c := streamCredential{
			p: kassa.Principal{MerchantID: t.MerchantID, Environment: t.Environment, Scope: t.Scope, KeyID: t.KeyID,
				CredentialVersion: t.CredentialVersion},
			expires: time.Unix(t.ExpiresAt, 0), expiredReason: "token expired",
		}
		// A token lives no longer than the key it was minted with, or than the
		// credential version of the dashboard login it was minted with.
		if err := a.checkCredential(r.Context(), c.p); err != nil {
			return c, err
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
	key, err := a.core.AuthenticateKey(r.Context(), secret)
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
func (a *API) activeKey(ctx context.Context, p kassa.Principal) (*kassa.APIKey, error) {
	key, err := a.keys.APIKey(ctx, p.MerchantID, p.KeyID)
	if err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, httpx.ErrUnauthenticated("api_key_revoked", "The API key behind this credential no longer exists.")
		}
		return nil, err
	}
	switch key.Status(a.core.Now()) {
	case kassa.KeyRevoked:
		return key, httpx.ErrUnauthenticated("api_key_revoked", "This API key has been revoked.")
	case kassa.KeyExpired:
		return key, httpx.ErrUnauthenticated("api_key_expired", "This API key has expired.")
	}
	return key, nil
}

// checkCredential checks what stands behind a stream's principal: its API key
// is still active, or (no key: a token minted with a dashboard login) the
// merchant's credential version is still the one the token was minted under.
func (a *API) checkCredential(ctx context.Context, p kassa.Principal) error {
	if p.KeyID == "" {
		_, err := a.core.CurrentCredentials(ctx, p.MerchantID, p.CredentialVersion)
		return err
	}
	_, err := a.activeKey(ctx, p)
	return err
}

// keyCheck is one status check of a key, shared by the streams opened with it.
type keyCheck struct {
	err error
	at  time.Time
}

// recheckKey is checkCredential for open streams: streams of one key (or of one
// merchant's credential version) share a check for half the check interval, so
// 10,000 streams on one key cost one query, not 10,000. Lookup failures other
// than revocation or expiry are not shared (nor fatal).
func (a *API) recheckKey(ctx context.Context, p kassa.Principal) error {
	now := time.Now()
	id := p.KeyID
	if id == "" { // key ids never contain ':'
		id = "cv:" + strconv.FormatInt(p.MerchantID, 10) + ":" + strconv.FormatInt(p.CredentialVersion, 10)
	}
	a.keyCheckMu.Lock()
	c, ok := a.keyChecks[id]
	if len(a.keyChecks) > 10000 {
		clear(a.keyChecks)
	}
	a.keyCheckMu.Unlock()
	if ok && now.Sub(c.at) < a.keyCheckEvery/2 {
		return c.err
	}
	err := a.checkCredential(ctx, p)
	if err != nil && kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
		return err
	}
	a.keyCheckMu.Lock()
	a.keyChecks[id] = keyCheck{err: err, at: now}
	a.keyCheckMu.Unlock()
	return err
}
