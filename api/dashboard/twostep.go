package dashboard

import (
	"cmp"
	"context"
	"html/template"
	"net/http"

	"github.com/kassapay/kassa"
)

// twoStepView is the settings page's two-step sign-in section: on or off, and
// while the merchant enrols, the secret being enrolled (as a QR code and as text).
// The secret is shown only then: once on, it is never rendered again.
type twoStepView struct {
	On     bool
	Secret string       // the secret being enrolled, for manual entry
	QR     template.URL // its otpauth:// URI as a QR code
	Fields []field      // enrol: the code; turn off: the password and a code
	Error  string
	Note   string // after turning it on or off
}

// twoStep lays out the section for v, the error msg by the field param names.
func (d *Dashboard) twoStep(ctx context.Context, v *visit, param, msg string) (*twoStepView, error) {
	st, err := d.cfg.SignIn.TwoStep(ctx, v.m, v.token)
	if err != nil {
		return nil, err
	}
	tv := &twoStepView{On: st.On, Error: msg}
	if !st.On && st.Secret == "" {
		return tv, nil
	}
	if !st.On {
		tv.Secret, tv.QR = st.Secret, qrData(st.URI)
	}
	tv.Fields = []field{{Name: "password", Label: "Current password", Type: "password", Auto: "current-password"}, codeField("")}
	for i := range tv.Fields {
		if tv.Fields[i].Name == param {
			tv.Fields[i].Error, tv.Error = msg, "" // said once, by its field
		}
	}
	return tv, nil
}

// renderSettings renders the settings page with view, its two-step section
// (with the error msg by the field param) and the password form when unset.
func (d *Dashboard) renderSettings(w http.ResponseWriter, r *http.Request, v *visit, status int, view *settingsView, param, msg string) error {
	tv, err := d.twoStep(r.Context(), v, param, msg)
	if err != nil {
		return err
	}
	view.TwoStep = tv
	d.settlementChoices(view)
	if view.Password == nil {
		view.Password = passwordFields("", "")
	}
	if !tv.On { // no code to ask for
		view.Password, view.Confirm = withoutCode(view.Password), withoutCode(view.Confirm)
	}
	switch r.URL.Query().Get("two_step") {
	case "on":
		tv.Note = "Two-step sign-in is on: signing in now asks for a code after the password."
	case "off":
		tv.Note = "Two-step sign-in is off."
	}
	d.render(w, r, status, "settings.html", v, view)
	return nil
}

// twoStepRefused renders the settings page again with msg by param (status).
func (d *Dashboard) twoStepRefused(w http.ResponseWriter, r *http.Request, v *visit, status int, param, msg string) error {
	return d.renderSettings(w, r, v, status, formOf(v.m).view(v.m, "", ""), param, msg)
}

// setupTwoStep serves POST /dashboard/settings/two-step/setup: a fresh secret,
// kept on this session server-side until a code proves it (a new set-up replaces
// it), then 303 to the settings page, which shows it.
func (d *Dashboard) setupTwoStep(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := d.cfg.SignIn.SetUpTwoStep(r.Context(), v.m, v.token); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/settings#two-step")
	return nil
}

// withoutCode is fields less the code input.
func withoutCode(fields []field) []field {
	out := make([]field, 0, len(fields))
	for _, f := range fields {
		if f.Name != "code" {
			out = append(out, f)
		}
	}
	return out
}

// enableTwoStep serves POST /dashboard/settings/two-step/enable {password,
// code}: the current password and a right code for the secret being enrolled
// turn the factor on (303); else the page again (400, 403 or 429). Turning it on
// ends every session and token (the credential version moves on), so this
// browser gets a fresh session. Attempts draw on the sign-in limit.
func (d *Dashboard) enableTwoStep(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		return d.twoStepRefused(w, r, v, http.StatusTooManyRequests, "code", "Too many attempts; wait a minute and try again.")
	}
	token, err := d.cfg.SignIn.EnableTwoStep(r.Context(), v.token, v.s, proofOf(r, "password"))
	return d.twoStepChanged(w, r, v, token, err, "on")
}

// disableTwoStep serves POST /dashboard/settings/two-step/disable {password,
// code}: the current password and a valid code (used once) turn the factor off
// (303, with a fresh session as for turning it on); else the page again (403 or
// 429). Attempts draw on the sign-in limit.
func (d *Dashboard) disableTwoStep(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		return d.twoStepRefused(w, r, v, http.StatusTooManyRequests, "code", "Too many attempts; wait a minute and try again.")
	}
	token, err := d.cfg.SignIn.DisableTwoStep(r.Context(), v.s, proofOf(r, "password"))
	return d.twoStepChanged(w, r, v, token, err, "off")
}

// twoStepChanged answers a two-step change: err by its field (a missing set-up
// above the form), or the cookie of the fresh session token (the change ended
// the old one) and 303 to the settings page.
func (d *Dashboard) twoStepChanged(w http.ResponseWriter, r *http.Request, v *visit, token string, err error, state string) error {
	if err != nil {
		status, ok := formStatus[kassa.ErrorKindOf(err)]
		if !ok {
			return err
		}
		e := kassa.AsError(err)
		param := e.Param
		switch {
		case e.Code == "two_step_not_set_up":
		case param == "current_password":
			param = "password" // the two-step forms' name for it
		default:
			param = cmp.Or(param, "password")
		}
		return d.twoStepRefused(w, r, v, status, param, e.Message)
	}
	d.setCookie(w, token, int(kassa.DashboardSessionTTL.Seconds()))
	redirect(w, r, "/dashboard/settings?two_step="+state+"#two-step")
	return nil
}
