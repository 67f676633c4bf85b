package dashboard

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/signin"
)

// field is one input of a settings form, with what is wrong with it.
type field struct {
	Name, Label, Value, Type, Hint, Auto, Error string
	Mode                                        string   // inputmode, e.g. numeric
	Options                                     []option // a select's choices; nil for an input
}

// settlementFields are one environment's settlement target inputs.
type settlementFields struct {
	Env    kassa.Environment
	Fields []field
}

// settingsView is the settings page: the account form (as typed when refused),
// the password form, two-step sign-in and the mainnet access.
type settingsView struct {
	Account        []field
	Settlement     []settlementFields
	Confirm        []field // the proof a settlement change needs: current password (and code)
	Password       []field
	Saved          bool
	Error          string // a refused account form's message
	PasswordError  string // a refused password change's message
	MainnetEnabled bool
	MainnetHelp    string
	TwoStep        *twoStepView
}

// toleranceField is the tolerance input, in USD; the API's param is in usd_millis.
const toleranceField = "underpayment_tolerance_usd"

// settingsForm is what the account form holds: the API's params, values as text.
type settingsForm map[string]string

func settlementParam(env kassa.Environment, part string) string {
	return "settlement." + string(env) + "." + part
}

// formOf is the account form filled from m.
func formOf(m *kassa.Merchant) settingsForm {
	f := settingsForm{"company_name": m.CompanyName, toleranceField: m.UnderpaymentToleranceMillis.Number()}
	if m.DefaultReturnURL != nil {
		f["default_return_url"] = *m.DefaultReturnURL
	}
	for env, st := range m.Settlement {
		f[settlementParam(env, "network")] = st.Network
		f[settlementParam(env, "token_symbol")] = st.TokenSymbol
		f[settlementParam(env, "address")] = st.Address
	}
	return f
}

// view lays the form out, the error next to the field its param names.
func (f settingsForm) view(m *kassa.Merchant, param, msg string) *settingsView {
	mk := func(name, label, typ, hint, auto string) field {
		fl := field{Name: name, Label: label, Value: f[name], Type: typ, Hint: hint, Auto: auto}
		if name == param {
			fl.Error = msg
		}
		return fl
	}
	v := &settingsView{MainnetEnabled: m.MainnetEnabled, MainnetHelp: mainnetHelp(m.ID), Account: []field{
		mk("company_name", "Company name", "text", "The default title and footer of invoices.", "organization"),
		mk("default_return_url", "Default return URL", "url", "Where payors go after paying, an https address; empty: none.", "url"),
		mk(toleranceField, "Underpayment tolerance (USD)", "text", "A payment this much short still counts as paid, e.g. 0.50.", "off"),
	}}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		v.Settlement = append(v.Settlement, settlementFields{Env: env, Fields: []field{
			mk(settlementParam(env, "network"), "Network", "text", "The networks Kassa offers in "+string(env)+".", "off"),
			mk(settlementParam(env, "token_symbol"), "Token", "text", "The token you receive, on that network.", "off"),
			mk(settlementParam(env, "address"), "Address", "text", "0x…", "off"),
		}})
	}
	v.Confirm = proofFields(param, msg, "Needed only to change a settlement target or the underpayment tolerance.")
	if param != "" && !strings.Contains(param, "password") && param != "code" {
		v.Error = v.labelOf(param) + msg
	}
	return v
}

// labelOf names the field of param for the message above the form
// ("Settlement target on devnet, Address: "), "" for no field of the form.
func (v *settingsView) labelOf(param string) string {
	for _, f := range v.Account {
		if f.Name == param {
			return f.Label + ": "
		}
	}
	for _, st := range v.Settlement {
		for _, f := range st.Fields {
			if f.Name == param {
				return "Settlement target on " + string(st.Env) + ", " + f.Label + ": "
			}
		}
	}
	return ""
}

// proofFields are the inputs of a re-authentication, never refilled: the current
// password and the code (renderSettings drops the code while two-step is off).
func proofFields(param, msg, hint string) []field {
	out := []field{{Name: "current_password", Label: "Current password", Type: "password", Auto: "current-password", Hint: hint},
		codeField("")}
	for i := range out {
		if out[i].Name == param {
			out[i].Error = msg
		}
	}
	return out
}

// proofOf reads a re-authentication's inputs from a posted form.
func proofOf(r *http.Request, password string) signin.Proof {
	return signin.Proof{Password: r.PostFormValue(password), Code: strings.TrimSpace(r.PostFormValue("code"))}
}

// passwordFields are the password change inputs, never refilled; the code is
// dropped while two-step is off.
func passwordFields(param, msg string) []field {
	out := []field{
		{Name: "current_password", Label: "Current password", Type: "password", Auto: "current-password"},
		{Name: "new_password", Label: "New password", Type: "password", Auto: "new-password", Hint: "8 characters or more."},
		{Name: "confirm_password", Label: "New password again", Type: "password", Auto: "new-password"},
		codeField(""),
	}
	for i := range out {
		if out[i].Name == param {
			out[i].Error = msg
		}
	}
	return out
}

// mainnetHelp says how a merchant gets mainnet access.
func mainnetHelp(id int64) string {
	return "Mainnet is not enabled for this account yet. Ask your Kassa operator to enable it " +
		"(kassa merchant enable-mainnet --id " + itoa(id) + ")."
}

// settings serves GET /dashboard/settings.
func (d *Dashboard) settings(w http.ResponseWriter, r *http.Request, v *visit) error {
	view := formOf(v.m).view(v.m, "", "")
	view.Saved = r.URL.Query().Get("saved") == "1"
	return d.renderSettings(w, r, v, http.StatusOK, view, "", "")
}

// saveSettings serves POST /dashboard/settings: the form as submitted, whose
// changes merchants.Service.SaveSettings applies (with the same validation and
// proof as PATCH /api/v1/merchant). A refused form comes back with its values
// and the message by its field (400).
func (d *Dashboard) saveSettings(w http.ResponseWriter, r *http.Request, v *visit) error {
	form := settingsForm{}
	for _, name := range []string{"company_name", "default_return_url", toleranceField} {
		form[name] = strings.TrimSpace(r.PostFormValue(name))
	}
	want := merchants.Settings{CompanyName: form["company_name"], DefaultReturnURL: form["default_return_url"],
		Settlement: map[kassa.Environment]kassa.Settlement{}}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		st := kassa.Settlement{}
		for part, dst := range map[string]*string{"network": &st.Network, "token_symbol": &st.TokenSymbol, "address": &st.Address} {
			name := settlementParam(env, part)
			form[name] = strings.TrimSpace(r.PostFormValue(name))
			*dst = form[name]
		}
		want.Settlement[env] = st
	}
	tol, ok := kassa.ParsePrice(form[toleranceField])
	var err error
	if !ok {
		err = kassa.Invalidf(toleranceField, "invalid_tolerance", "Enter the tolerance in USD, such as 0.50.")
	} else {
		want.UnderpaymentToleranceMillis = tol
		_, err = d.cfg.Accounts.SaveSettings(r.Context(), v.m, want, proofOf(r, "current_password"))
	}
	if err != nil {
		status, ok := formStatus[kassa.ErrorKindOf(err)]
		if !ok {
			return err
		}
		e := kassa.AsError(err)
		param := cmp.Or(e.Param, "current_password")
		if param == "underpayment_tolerance_usd_millis" {
			param = toleranceField
		}
		return d.renderSettings(w, r, v, status, form.view(v.m, param, formMessage(err)), "", "")
	}
	redirect(w, r, "/dashboard/settings?saved=1")
	return nil
}

// formStatus are the errors a settings form shows by its field, with the status
// of the page that shows them: bad input, a refused re-authentication, a held
// account.
var formStatus = map[kassa.ErrorKind]int{
	kassa.KindInvalid:     http.StatusBadRequest,
	kassa.KindPermission:  http.StatusForbidden,
	kassa.KindRateLimited: http.StatusTooManyRequests,
}

// changePassword serves POST /dashboard/settings/password {current_password,
// new_password, confirm_password, code}: the code only while two-step is on. A
// change ends every session of the merchant, this one too, so the answer is the
// sign-in page with a note. Attempts are limited per client IP as sign-ins are,
// and per account by signin.Service: the current password is a secret to guess.
func (d *Dashboard) changePassword(w http.ResponseWriter, r *http.Request, v *visit) error {
	status, param, msg := http.StatusBadRequest, "", ""
	next := r.PostFormValue("new_password")
	if err := d.cfg.Core.LimitLogin(w, r); err != nil {
		status, param, msg = http.StatusTooManyRequests, "current_password", "Too many attempts; wait a minute and try again."
	} else if next != r.PostFormValue("confirm_password") {
		param, msg = "confirm_password", "The new passwords do not match."
	} else if err := d.cfg.SignIn.ChangePassword(r.Context(), v.m.ID, proofOf(r, "current_password"), next); err != nil {
		st, ok := formStatus[kassa.ErrorKindOf(err)]
		if !ok {
			return err
		}
		e := kassa.AsError(err)
		status, param, msg = st, cmp.Or(e.Param, "current_password"), e.Message
	} else {
		d.setCookie(w, "", -1)
		redirect(w, r, "/dashboard/login?changed=1")
		return nil
	}
	view := formOf(v.m).view(v.m, "", "")
	view.Password, view.PasswordError = passwordFields(param, msg), msg
	return d.renderSettings(w, r, v, status, view, "", "")
}

// signOutEverywhere serves POST /dashboard/settings/sign-out-everywhere: every
// dashboard session and API token of the merchant ends, this session too.
func (d *Dashboard) signOutEverywhere(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := d.cfg.SignIn.SignOutEverywhere(r.Context(), v.m.ID); err != nil {
		return err
	}
	d.setCookie(w, "", -1)
	redirect(w, r, "/dashboard/login?signed_out=1")
	return nil
}
