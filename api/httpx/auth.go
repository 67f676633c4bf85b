package httpx

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

type principalKey struct{}

// Principal returns the caller set by merchantAuth or jwtOnly.
func Principal(ctx context.Context) kassa.Principal {
	p, _ := ctx.Value(principalKey{}).(kassa.Principal)
	return p
}

type authMode int

const (
	authMerchant authMode = iota // API key of merchant scope or dashboard JWT
	authJWT                      // dashboard JWT only
	authAnyScope                 // API key of either scope, or dashboard JWT (merchant scope)
	authCommerce                 // API key of commerce scope only
)

// Merchant admits merchant-scope API keys and dashboard JWTs (MA).
func (s *Core) Merchant(h Func) Func { return s.authed(authMerchant, h) }

// AnyScope admits API keys of both scopes and dashboard JWTs: events and
// WebSocket tokens, whose results depend on the key's scope.
func (s *Core) AnyScope(h Func) Func { return s.authed(authAnyScope, h) }

// JWT admits dashboard JWTs only; a valid API key gets 403 jwt_required.
func (s *Core) JWT(h Func) Func { return s.authed(authJWT, h) }

// Commerce admits commerce-scope API keys (x-commerce-api-key or x-api-key).
func (s *Core) Commerce(h Func) Func { return s.authed(authCommerce, h) }

func (s *Core) authed(mode authMode, h Func) Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.authenticate(r, mode)
		if err != nil {
			return err
		}
		if err := Apply(r.Context(), w, s.general, LimitKey(p)); err != nil {
			return err
		}
		return h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}

// authenticate finds the principal of a request. A bearer token wins over key
// headers; a bearer token that is an API key secret is treated as a key.
func (s *Core) authenticate(r *http.Request, mode authMode) (kassa.Principal, error) {
	bearer, hasAuth, err := BearerToken(r)
	if err != nil {
		return kassa.Principal{}, err
	}
	secret := r.Header.Get("X-Api-Key")
	if c := r.Header.Get("X-Commerce-Api-Key"); c != "" && (secret == "" || mode == authCommerce) {
		secret = c // the commerce header is the commerce API's own
	}
	if hasAuth && strings.HasPrefix(bearer, "kassa_") {
		secret, hasAuth = bearer, false
	}
	switch {
	case hasAuth && mode == authCommerce:
		// The bearer wins here too: a token that is not valid, or revoked by a
		// credential change, is 401 like anywhere else; a valid one is the wrong
		// kind of credential.
		id, version, err := s.ParseDashboardToken(bearer)
		if err != nil {
			return kassa.Principal{}, err
		}
		if _, err := s.CurrentCredentials(r.Context(), id, version); err != nil {
			return kassa.Principal{}, err
		}
		return kassa.Principal{}, ErrPermission("wrong_key_scope",
			"The commerce API needs a commerce-scope API key (x-commerce-api-key or x-api-key), not a dashboard token.")
	case hasAuth:
		return s.tokenPrincipal(r, bearer, mode)
	case secret != "":
		key, err := s.AuthenticateKey(r.Context(), secret)
		if err != nil {
			return kassa.Principal{}, err
		}
		if mode == authJWT {
			return kassa.Principal{}, ErrPermission("jwt_required",
				"This endpoint needs a dashboard token (Authorization: Bearer <jwt>), not an API key.")
		}
		if mode == authCommerce && key.Scope != kassa.ScopeCommerce {
			return kassa.Principal{}, ErrPermission("wrong_key_scope",
				"The commerce API needs a commerce-scope API key; a "+string(key.Scope)+"-scope key was sent.")
		}
		if key.Scope != kassa.ScopeMerchant && mode != authAnyScope && mode != authCommerce {
			return kassa.Principal{}, ErrPermission("wrong_key_scope",
				"This endpoint needs a merchant-scope API key; a "+string(key.Scope)+"-scope key was sent.")
		}
		return kassa.Principal{MerchantID: key.MerchantID, Environment: key.Environment,
			Scope: key.Scope, KeyID: key.ID}, nil
	default:
		return kassa.Principal{}, ErrUnauthenticated("missing_credentials",
			"No credentials were sent: use the x-api-key header (x-commerce-api-key on the commerce API) or Authorization: Bearer <jwt>.")
	}
}

// BearerToken reads an Authorization: Bearer header.
func BearerToken(r *http.Request) (token string, ok bool, err error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, nil
	}
	scheme, token, found := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false, ErrUnauthenticated("invalid_token", "The Authorization header must be \"Bearer <token>\".")
	}
	return token, true, nil
}

// tokenPrincipal checks a dashboard JWT, and that the merchant's credential
// version (read from the store on every request, so a bump on any instance
// counts at once) is still the token's. For merchant endpoints the environment
// comes from the x-environment header (default devnet).
func (s *Core) tokenPrincipal(r *http.Request, token string, mode authMode) (kassa.Principal, error) {
	id, version, expires, err := s.parseDashboardToken(token)
	if err != nil {
		return kassa.Principal{}, err
	}
	m, err := s.CurrentCredentials(r.Context(), id, version)
	if err != nil {
		return kassa.Principal{}, err
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant,
		CredentialVersion: version, TokenExpires: expires}
	if mode == authJWT {
		return p, nil
	}
	if h := r.Header.Get("X-Environment"); h != "" {
		p.Environment = kassa.Environment(h)
		if !p.Environment.Valid() {
			return kassa.Principal{}, ErrInvalid("x-environment", "invalid_environment",
				"The x-environment header must be devnet or mainnet.")
		}
	}
	if p.Environment == kassa.Mainnet && !m.MainnetEnabled {
		return kassa.Principal{}, ErrMainnetNotEnabled()
	}
	return p, nil
}

// CurrentCredentials returns the merchant when version is still its credential
// version (read from the store, so a bump on any instance counts at once): 401
// token_revoked when it moved on, invalid_token when the merchant is gone.
func (s *Core) CurrentCredentials(ctx context.Context, merchantID, version int64) (*kassa.Merchant, error) {
	m, err := s.merchants.Merchant(ctx, merchantID)
	if err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, ErrInvalidDashboardToken()
		}
		return nil, err
	}
	if version != m.CredentialVersion {
		return nil, ErrDashboardTokenRevoked()
	}
	return m, nil
}

func ErrMainnetNotEnabled() error {
	return ErrPermission("mainnet_not_enabled", "Mainnet access is not enabled for this merchant; request it first.")
}

// AuthenticateKey checks an API key secret and records its use.
func (s *Core) AuthenticateKey(ctx context.Context, secret string) (*kassa.APIKey, error) {
	invalid := ErrUnauthenticated("invalid_api_key", "Invalid API key provided.")
	if _, ok := kassa.ParseAPIKeySecret(secret); !ok {
		return nil, invalid
	}
	key, err := s.keys.AuthenticateAPIKey(ctx, secret)
	if err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, invalid
		}
		return nil, err
	}
	switch key.Status(s.now()) {
	case kassa.KeyRevoked:
		return nil, ErrUnauthenticated("api_key_revoked", "This API key has been revoked.")
	case kassa.KeyExpired:
		return nil, ErrUnauthenticated("api_key_expired", "This API key has expired.")
	}
	s.touch(ctx, key.ID)
	return key, nil
}

// touchEvery is how often a key's last_used_at is written at most.
const touchEvery = time.Minute

// touch records a key's use at most once per touchEvery per key. A failure is
// logged and does not fail the request.
func (s *Core) touch(ctx context.Context, keyID string) {
	now := s.now()
	s.touchMu.Lock()
	if last, ok := s.touched[keyID]; ok && now.Sub(last) < touchEvery && !now.Before(last) {
		s.touchMu.Unlock()
		return
	}
	if len(s.touched) > 10000 {
		for k, t := range s.touched {
			if now.Sub(t) >= touchEvery {
				delete(s.touched, k)
			}
		}
	}
	s.touched[keyID] = now
	s.touchMu.Unlock()

	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := s.keys.TouchAPIKey(tctx, keyID, now); err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "recording API key use failed",
			slog.String("request_id", RequestID(ctx)), slog.String("key_id", keyID), slog.String("error", err.Error()))
	}
}
