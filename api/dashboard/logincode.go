package dashboard

import (
	"net/http"
	"net/url"

	"github.com/kassapay/kassa"
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

// signInToken is the request's half sign-in token, "" without one.
func signInToken(r *http.Request) string {
	c, err := r.Cookie(signInCookie)
	if err != nil {
		return ""
	}
	return c.Value
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
	if err := d.cfg.SignIn.AwaitingCode(r.Context(), signInToken(r)); err != nil {
		d.restart(w, r, next, err)
		return
	}
	d.render(w, r, http.StatusOK, "login_code.html", nil, codeView{Next: next, Code: codeField("")})
}

// loginCode serves POST /dashboard/login/code {code, next}: signin.Service.Code
// checks it; a right code turns the half sign-in into a session under a new
// token (303 to next); a wrong one renders the form again (401), and the
// kassa.DashboardCodeTries-th voids the half sign-in: back to the password
// (303). Attempts draw on the sign-in limit.
func (d *Dashboard) loginCode(w http.ResponseWriter, r *http.Request) {
	view := codeView{Next: safeNext(r.PostFormValue("next")), Code: codeField("")}
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		view.Error = "Too many sign-in attempts; wait a minute and try again."
		d.render(w, r, http.StatusTooManyRequests, "login_code.html", nil, view)
		return
	}
	full, err := d.cfg.SignIn.Code(r.Context(), signInToken(r), r.PostFormValue("code"))
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
		d.restart(w, r, view.Next, err) // signed out meanwhile: back to the password
		return
	}
	d.setSignInCookie(w, "", -1)
	d.setCookie(w, full, int(kassa.DashboardSessionTTL.Seconds()))
	redirect(w, r, view.Next)
}
