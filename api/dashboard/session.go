package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// cookieName is the session cookie; its value is the session token.
const cookieName = "kassa_session"

// visit is one signed-in request: the session, its token and the merchant.
type visit struct {
	s     *signin.DashboardSession
	token string
	m     *kassa.Merchant
}

// principal is who the pages act as: the merchant in the session's environment.
func (v *visit) principal() kassa.Principal { return v.s.Principal() }

// env is the environment the pages show.
func (v *visit) env() kassa.Environment { return v.s.Environment }

// pageFunc is a signed-in page; an error it returns is rendered as the error page.
type pageFunc func(w http.ResponseWriter, r *http.Request, v *visit) error

// signedIn runs h for a signed-in merchant; without a live session a GET is sent
// to the sign-in page (303) with the page to come back to, a POST too. The
// request counts as the session's use (its idle timeout starts again).
func (d *Dashboard) signedIn(h pageFunc) http.HandlerFunc { return d.guard(h, true) }

// watching is signedIn for a page's live updates: an open page's stream is not
// the merchant's use of the session, so it does not keep an unattended browser
// signed in.
func (d *Dashboard) watching(h pageFunc) http.HandlerFunc { return d.guard(h, false) }

func (d *Dashboard) guard(h pageFunc, use bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := d.session(r)
		if err != nil {
			if kassa.ErrorKindOf(err) != kassa.KindUnauthenticated {
				d.fail(w, r, nil, err)
				return
			}
			next := r.URL.RequestURI()
			if r.Method != http.MethodGet {
				next = "/dashboard"
			}
			to := "/dashboard/login?next=" + url.QueryEscape(next)
			if kassa.AsError(err).Code == "session_idle" {
				d.setCookie(w, "", -1)
				to += "&idle=1"
			}
			redirect(w, r, to)
			return
		}
		if use && v.s.NeedsTouch(d.cfg.Core.Now()) {
			if err := d.cfg.Sessions.TouchDashboardSession(r.Context(), v.token); err != nil {
				d.fail(w, r, v, err)
				return
			}
		}
		if err := h(w, r, v); err != nil {
			d.fail(w, r, v, err)
		}
	}
}

// session finds the request's session and its merchant.
func (d *Dashboard) session(r *http.Request) (*visit, error) {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return nil, kassa.Errorf(kassa.KindUnauthenticated, "signed_out", "Sign in first.")
	}
	s, err := d.cfg.Sessions.DashboardSession(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	m, err := d.cfg.Merchants.Merchant(r.Context(), s.MerchantID)
	if err != nil {
		return nil, err
	}
	return &visit{s: s, token: c.Value, m: m}, nil
}

// setCookie gives the browser the session token: HttpOnly (no script reads it),
// SameSite=Lax (no other site's form posts carry it), Secure over https.
func (d *Dashboard) setCookie(w http.ResponseWriter, token string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: "/dashboard", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: d.secure})
}

// loginForm serves GET /dashboard/login.
func (d *Dashboard) loginForm(w http.ResponseWriter, r *http.Request) {
	if _, err := d.session(r); err == nil {
		redirect(w, r, safeNext(r.FormValue("next")))
		return
	}
	view := loginView{Next: safeNext(r.FormValue("next"))}
	switch {
	case r.FormValue("changed") == "1":
		view.Note = "Your password was changed and every session signed out: sign in with the new password."
	case r.FormValue("expired") == "1":
		view.Note = "The sign-in waited too long for its code: sign in again."
	case r.FormValue("void") == "1":
		view.Note = "Too many wrong codes: sign in again with your password."
	case r.FormValue("signed_out") == "1":
		view.Note = "Every session of your account was signed out, this one too: sign in again."
	case r.FormValue("idle") == "1":
		view.Note = "You were signed out after " + kassa.IdleTimeoutText() + " without activity: sign in again."
	}
	d.render(w, r, http.StatusOK, "login.html", nil, view)
}

// loginView is the sign-in form.
type loginView struct {
	Email, Next, Error string
	Note               string // after a password change
}

// login serves POST /dashboard/login {email, password, next}: a session and its
// cookie, then 303 to next; with the second factor on, a half sign-in and 303 to
// its code step instead. Attempts are limited per client IP, as the API's, and
// per account by signin.Service (the API's rule: 429 while it is held back).
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	view := loginView{Email: strings.TrimSpace(r.PostFormValue("email")), Next: safeNext(r.PostFormValue("next"))}
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		view.Error = "Too many sign-in attempts; wait a minute and try again."
		d.render(w, r, http.StatusTooManyRequests, "login.html", nil, view)
		return
	}
	step, err := d.cfg.SignIn.Password(r.Context(), view.Email, r.PostFormValue("password"))
	if err != nil {
		switch kassa.ErrorKindOf(err) {
		case kassa.KindRateLimited:
			view.Error = kassa.AsError(err).Message
			d.render(w, r, http.StatusTooManyRequests, "login.html", nil, view)
		case kassa.KindUnauthenticated, kassa.KindNotFound, kassa.KindInvalid:
			view.Error = "The email or password is incorrect."
			d.render(w, r, http.StatusUnauthorized, "login.html", nil, view)
		default:
			d.fail(w, r, nil, err)
		}
		return
	}
	if step.AwaitsCode {
		d.setSignInCookie(w, step.Token, int(kassa.DashboardCodeTTL.Seconds()))
		redirect(w, r, "/dashboard/login/code?next="+url.QueryEscape(view.Next))
		return
	}
	d.setCookie(w, step.Token, int(kassa.DashboardSessionTTL.Seconds()))
	redirect(w, r, view.Next)
}

// logout serves POST /dashboard/logout: the session ends in the store, not only
// in the browser.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := d.cfg.Sessions.DeleteDashboardSession(r.Context(), v.token); err != nil {
		return err
	}
	d.setCookie(w, "", -1)
	redirect(w, r, "/dashboard/login")
	return nil
}

// switchEnvironment serves POST /dashboard/environment {environment, next}: the
// test-mode switch. Mainnet needs the merchant's mainnet access.
func (d *Dashboard) switchEnvironment(w http.ResponseWriter, r *http.Request, v *visit) error {
	env := kassa.Environment(r.PostFormValue("environment"))
	if !env.Valid() {
		return kassa.Invalidf("environment", "invalid_environment", "Choose devnet or mainnet.")
	}
	if !v.m.Allows(env) {
		err := kassa.ErrMainnetNotEnabled()
		err.Param, err.Message = "environment", mainnetHelp(v.m.ID)
		return err
	}
	if err := d.cfg.Sessions.SetDashboardEnvironment(r.Context(), v.token, env); err != nil {
		return err
	}
	redirect(w, r, safeNext(r.PostFormValue("next")))
	return nil
}

// safeNext keeps a redirect target inside the dashboard: a path under /dashboard,
// never another host ("//evil", "/dashboard@evil" are refused).
func safeNext(next string) string {
	if next == "/dashboard" || (strings.HasPrefix(next, "/dashboard/") || strings.HasPrefix(next, "/dashboard?")) &&
		!strings.ContainsAny(next, "\\@") && !strings.Contains(next, "//") {
		return next
	}
	return "/dashboard"
}
