package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// keysView is the API keys page: the keys of the session's environment, the
// create form, and a new key's secret, shown once.
type keysView struct {
	Keys    []keyRow
	Secret  string // the key just made
	Name    string
	Scope   string
	Expires string
	Error   string
	Param   string
	Env     kassa.Environment
}

// keyRow is a key and its status now.
type keyRow struct {
	*kassa.APIKey
	State string
}

// apiKeys serves GET /dashboard/developers/api-keys.
func (d *Dashboard) apiKeys(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := d.keysView(r, v)
	if err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "keys.html", v, view)
	return nil
}

func (d *Dashboard) keysView(r *http.Request, v *visit) (*keysView, error) {
	keys, err := d.cfg.Keys.APIKeys(r.Context(), v.m.ID, "")
	if err != nil {
		return nil, err
	}
	view := &keysView{Scope: string(kassa.ScopeMerchant), Env: v.env()}
	now := d.cfg.Now()
	for _, k := range keys {
		if k.Environment == v.env() {
			view.Keys = append(view.Keys, keyRow{APIKey: k, State: k.Status(now)})
		}
	}
	return view, nil
}

// createAPIKey serves POST /dashboard/developers/api-keys {name, scope, expires}:
// the key in the session's environment; its secret is on the answer (201) only.
func (d *Dashboard) createAPIKey(w http.ResponseWriter, r *http.Request, v *visit) error {
	c := kassa.APIKeyCreate{Name: strings.TrimSpace(r.PostFormValue("name")), Scope: kassa.Scope(r.PostFormValue("scope")),
		Environment: v.env()}
	expires := strings.TrimSpace(r.PostFormValue("expires"))
	var err error
	if expires != "" {
		t, perr := time.Parse(time.DateOnly, expires)
		if perr != nil {
			err = kassa.Invalidf("expires", "invalid_expires_at", "The expiry must be a date such as 2027-01-31.")
		}
		t = t.Add(24*time.Hour - time.Second) // the end of that day, UTC
		c.ExpiresAt = &t
	}
	var secret string
	if err == nil {
		_, secret, err = d.cfg.Keys.CreateAPIKey(r.Context(), v.m.ID, c)
	}
	view, verr := d.keysView(r, v)
	if verr != nil {
		return verr
	}
	if err != nil {
		if k := kassa.ErrorKindOf(err); k != kassa.KindInvalid && k != kassa.KindPermission {
			return err
		}
		e := kassa.AsError(err)
		view.Error, view.Param, view.Name, view.Scope, view.Expires = formMessage(err), strings.TrimSuffix(e.Param, "_at"), c.Name, string(c.Scope), expires
		d.render(w, r, http.StatusBadRequest, "keys.html", v, view)
		return nil
	}
	view.Secret = secret
	d.render(w, r, http.StatusCreated, "keys.html", v, view)
	return nil
}

// revokeAPIKey serves POST /dashboard/developers/api-keys/{id}/revoke {reason}.
func (d *Dashboard) revokeAPIKey(w http.ResponseWriter, r *http.Request, v *visit) error {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if _, err := d.cfg.Keys.RevokeAPIKey(r.Context(), v.m.ID, r.PathValue("id"), reason); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/developers/api-keys")
	return nil
}
