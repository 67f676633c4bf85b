package merchantapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// defaultKeyName is the name of a key created without one.
const defaultKeyName = "API key"

// keyJSON is an API key as listed (docs/api.md 2.1); the secret is never shown again.
type keyJSON struct {
	KeyID         string  `json:"key_id"`
	Object        string  `json:"object"`
	Name          string  `json:"name"`
	Scope         string  `json:"scope"`
	Environment   string  `json:"environment"`
	Prefix        string  `json:"prefix"`
	Status        string  `json:"status"`
	ExpiresAt     *string `json:"expires_at"`
	LastUsedAt    *string `json:"last_used_at"`
	CreatedAt     string  `json:"created_at"`
	RevokedAt     *string `json:"revoked_at"`
	RevokedReason *string `json:"revoked_reason"`
}

// createdKeyJSON is the answer to a key creation: the only time api_key is shown.
type createdKeyJSON struct {
	KeyID       string  `json:"key_id"`
	Object      string  `json:"object"`
	Name        string  `json:"name"`
	Scope       string  `json:"scope"`
	Environment string  `json:"environment"`
	Prefix      string  `json:"prefix"`
	Status      string  `json:"status"`
	APIKey      string  `json:"api_key"`
	ExpiresAt   *string `json:"expires_at"`
	CreatedAt   string  `json:"created_at"`
}

func (a *API) keyView(k *kassa.APIKey) keyJSON {
	return keyJSON{
		KeyID: k.ID, Object: "api_key", Name: k.Name, Scope: string(k.Scope), Environment: string(k.Environment),
		Prefix: k.Prefix, Status: k.Status(a.core.Now()), ExpiresAt: kassa.FormatOptTime(k.ExpiresAt), LastUsedAt: kassa.FormatOptTime(k.LastUsedAt),
		CreatedAt: kassa.FormatTime(k.CreatedAt), RevokedAt: kassa.FormatOptTime(k.RevokedAt), RevokedReason: k.RevokedReason,
	}
}

// ListKeys serves GET /api/v1/api-keys?scope=merchant|commerce: a bare array.
func (a *API) ListKeys(w http.ResponseWriter, r *http.Request) error {
	scope := kassa.Scope(r.URL.Query().Get("scope"))
	if scope != "" && !scope.Valid() {
		return httpx.ErrInvalid("scope", "invalid_scope", "scope must be merchant or commerce.")
	}
	keys, err := a.keys.APIKeys(r.Context(), httpx.Principal(r.Context()).MerchantID, scope)
	if err != nil {
		return err
	}
	out := make([]keyJSON, 0, len(keys))
	for _, k := range keys {
		out = append(out, a.keyView(k))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// CreateKey serves POST /api/v1/api-keys {name?, scope?, environment?, expires_at?}.
func (a *API) CreateKey(w http.ResponseWriter, r *http.Request) error {
	c, err := a.decodeKeyCreate(r)
	if err != nil {
		return err
	}
	key, secret, err := a.keys.CreateAPIKey(r.Context(), httpx.Principal(r.Context()).MerchantID, c)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, createdKeyJSON{
		KeyID: key.ID, Object: "api_key", Name: key.Name, Scope: string(key.Scope),
		Environment: string(key.Environment), Prefix: key.Prefix, Status: key.Status(a.core.Now()),
		APIKey: secret, ExpiresAt: kassa.FormatOptTime(key.ExpiresAt), CreatedAt: kassa.FormatTime(key.CreatedAt),
	})
	return nil
}

// decodeKeyCreate reads and validates a key create body; an empty body is {}.
func (a *API) decodeKeyCreate(r *http.Request) (kassa.APIKeyCreate, error) {
	c := kassa.APIKeyCreate{Name: defaultKeyName, Scope: kassa.ScopeMerchant, Environment: kassa.Devnet}
	err := httpx.DecodeRequest(r, httpx.BodyOptionalBlank, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "name":
			var err error
			if c.Name, err = httpx.ReqString(f); err != nil {
				return true, httpx.ErrInvalid("name", "invalid_name", "name must be a non-empty string of at most 100 characters.")
			}
		case "scope":
			v, err := httpx.ReqString(f)
			if err != nil || !kassa.Scope(v).Valid() {
				return true, httpx.ErrInvalid("scope", "invalid_scope", "scope must be merchant or commerce.")
			}
			c.Scope = kassa.Scope(v)
		case "environment":
			v, err := httpx.ReqString(f)
			if err != nil || !kassa.Environment(v).Valid() {
				return true, httpx.ErrInvalid("environment", "invalid_environment", "environment must be devnet or mainnet.")
			}
			c.Environment = kassa.Environment(v)
		case "expires_at":
			var err error
			c.ExpiresAt, err = decodeExpiresAt(f)
			return true, err
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return c, err
	}
	return c, c.Validate(a.core.Now())
}

// decodeExpiresAt reads a key's expires_at: an RFC 3339 timestamp or null.
func decodeExpiresAt(f httpx.Field) (*time.Time, error) {
	bad := httpx.ErrInvalid("expires_at", "invalid_expires_at", "expires_at must be a future RFC 3339 timestamp or null.")
	v, err := httpx.OptString(f)
	if err != nil {
		return nil, bad
	}
	if v == nil {
		return nil, nil
	}
	t, ok := kassa.ParseTime(*v)
	if !ok {
		return nil, bad
	}
	return &t, nil
}

// RevokeKey serves POST /api/v1/api-keys/{keyId}/revoke with an optional {reason}.
func (a *API) RevokeKey(w http.ResponseWriter, r *http.Request) error {
	reason := "Revoked by the merchant."
	err := httpx.DecodeRequest(r, httpx.BodyOptionalBlank, func(f httpx.Field) (bool, error) {
		if f.Key != "reason" {
			return false, nil
		}
		v, err := httpx.OptString(f)
		if err != nil {
			return true, err
		}
		if v != nil && strings.TrimSpace(*v) != "" {
			if len([]rune(*v)) > 255 || hasControlChars(*v) {
				return true, httpx.ErrInvalid("reason", "invalid_reason", "reason must be at most 255 characters of text.")
			}
			reason = *v
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	id := strings.ToLower(r.PathValue("keyId"))
	if !kassa.ValidUUID(id) {
		return kassa.NotFound("API key")
	}
	if _, err := a.keys.RevokeAPIKey(r.Context(), httpx.Principal(r.Context()).MerchantID, id, reason); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"message": "API key revoked."})
	return nil
}

func hasControlChars(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}
