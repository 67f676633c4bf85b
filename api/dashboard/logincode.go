package dashboard

import (
	"net/http"
	"net/url"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// signInCookie holds a half sign-in's token (the password was right, the code is
// awaited); it is sent only to the code step and signs nothing else in.
const signInCookie = "kassa_signin"

// setSignInCookie gives the browser a half sign-in's token, as setCookie does a
// session's, but only for /dashboard/login.
func (d *Dashboard) setSignInCookie(w http.ResponseWriter, token string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: token, Path: "/dashboard/login", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: d.secure})
}

// awaitCode starts a half sign-in of m (under the credential version its
// password check observed), kept server-side for kassa.DashboardCodeTTL, and
// sends the browser to the code step.
func (d *Dashboard) awaitCode(w http.ResponseWriter, r *http.Request, m *kassa.Merchant, next string) {
	token := kassa.NewDashboardToken()
	if _, err := d.cfg.Sessions.CreateDashboardSignIn(r.Context(), token, m.ID, m.CredentialVersion, kassa.Devnet); err != nil {
		d.fail(w, r, nil, err)
		return
	}
	d.setSignInCookie(w, token, int(kassa.DashboardCodeTTL.Seconds()))
	redirect(w, r, "/dashboard/login/code?next="+url.QueryEscape(next))
}

// halfSignIn finds the request's live half sign-in and its token.
func (d *Dashboard) halfSignIn(r *http.Request) (*signin.DashboardSession, string, error) {
	c, err := r.Cookie(signInCookie)
	if err != nil || c.Value == "" {
		return nil, "", kassa.Errorf(kassa.KindUnauthenticated, "signed_out", "Sign in first.")
	}
	s, err := d.cfg.Sessions.DashboardSignIn(r.Context(), c.Value)
	return s, c.Value, err
}

// codeView is the code step's form; Error is one not about the code (too many tries).
type codeView struct {
	Next, Error string
	Code        field
}

func codeField(msg string) field {
	return field{Name: "code", Label: "Code from your authenticator app", Type: "text", Auto: "one-time-code",
		Mode: "numeric", Hint: "6 digits; it changes every 30 seconds.", Error: msg}
}

// restart sends a browser without a live half sign-in back to the password step.
func (d *Dashboard) restart(w http.ResponseWriter, r *http.Request, next string, err error) {
	if kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
		d.fail(w, r, nil, err)
		return
	}
	d.setSignInCookie(w, "", -1)
	redirect(w, r, "/dashboard/login?expired=1&next="+url.QueryEscape(next))
}

// loginCodeForm serves GET /dashboard/login/code: the second step of a sign-in.
func (d *Dashboard) loginCodeForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.FormValue("next"))
	if _, _, err := d.halfSignIn(r); err != nil {
		d.restart(w, r, next, err)
		return
	}
	d.render(w, r, http.StatusOK, "login_code.html", nil, codeView{Next: next, Code: codeField("")})
}

// loginCode serves POST /dashboard/login/code {code, next}: a right code, used
// once, turns the half sign-in into a session under a new token (303 to next); a
// wrong one renders the form again (401), and the kassa.DashboardCodeTries-th
// voids the half sign-in: back to the password (303). Attempts draw on the
// sign-in limit.
func (d *Dashboard) loginCode(w http.ResponseWriter, r *http.Request) {
	view := codeView{Next: safeNext(r.PostFormValue("next")), Code: codeField("")}
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		view.Error = "Too many sign-in attempts; wait a minute and try again."
		d.render(w, r, http.StatusTooManyRequests, "login_code.html", nil, view)
		return
	}
	c, err := r.Cookie(signInCookie)
	if err != nil || c.Value == "" {
		d.restart(w, r, view.Next, kassa.Errorf(kassa.KindUnauthenticated, "signed_out", "Sign in first."))
		return
	}
	token := c.Value
	half, err := d.cfg.SignIn.Code(r.Context(), token, r.PostFormValue("code"))
	switch code := kassa.ErrorCode(err); {
	case err == nil:
	case code == "invalid_code":
		view.Code = codeField(kassa.AsError(err).Message) // said once, by the field
		d.render(w, r, http.StatusUnauthorized, "login_code.html", nil, view)
		return
	case code == "sign_in_void":
		d.setSignInCookie(w, "", -1)
		redirect(w, r, "/dashboard/login?void=1&next="+url.QueryEscape(view.Next))
		return
	default:
		d.restart(w, r, view.Next, err)
		return
	}
	full := kassa.NewDashboardToken() // the right code ended the half sign-in (Code)
	if _, err := d.cfg.Sessions.CreateDashboardSession(r.Context(), full, half.MerchantID, half.CredentialVersion,
		half.Environment); err != nil {
		d.restart(w, r, view.Next, err) // signed out meanwhile: back to the password
		return
	}
	d.setSignInCookie(w, "", -1)
	d.setCookie(w, full, int(kassa.DashboardSessionTTL.Seconds()))
	redirect(w, r, view.Next)
}
