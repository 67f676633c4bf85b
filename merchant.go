package kassa

import (
	"context"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Merchant is an account that issues invoices, with the settings that shape them.
type Merchant struct {
	ID               int64
	Name             string
	Email            string
	CompanyName      string // default invoice title and footer
	DefaultReturnURL *string
	// Settlement holds where settled money goes, per environment; absent when unset.
	Settlement                  map[Environment]Settlement
	UnderpaymentToleranceMillis Millis
	MainnetEnabled              bool
	CreatedAt                   time.Time
	// CredentialVersion is bumped by a password change, a two-step change and
	// "sign out everywhere": dashboard tokens and sessions of another version
	// are refused.
	CredentialVersion int64
}

// Allows reports whether the merchant may work in env: devnet always, mainnet
// only once mainnet access is enabled. It is the one place mainnet access is
// decided: API keys, dashboard logins and sessions, the test-mode switch and
// invoice creation all ask it (a surface words the refusal for its reader).
func (m *Merchant) Allows(env Environment) bool {
	return env != Mainnet || m.MainnetEnabled
}

// ErrMainnetNotEnabled is the refusal of mainnet to a merchant Allows refuses it
// (403 mainnet_not_enabled).
func ErrMainnetNotEnabled() *Error {
	return &Error{Kind: KindPermission, Code: "mainnet_not_enabled",
		Message: "Mainnet access is not enabled for this merchant; request it first."}
}

// Settlement is where a merchant's money is sent in one environment.
type Settlement struct {
	Network     string `json:"network"`
	TokenSymbol string `json:"token_symbol"`
	Address     string `json:"address"`
}

// MerchantCreate is a request for a new merchant account.
type MerchantCreate struct {
	Name           string
	Email          string
	Password       string
	MainnetEnabled bool
}

// Validate checks the new merchant's fields.
func (c *MerchantCreate) Validate() error {
	if err := checkText("name", c.Name, 255, true); err != nil {
		return err
	}
	if err := CheckEmail("email", c.Email); err != nil {
		return err
	}
	return CheckPassword("password", c.Password)
}

// CheckPassword checks a new password's length: 8 characters to 72 bytes (bcrypt
// reads at most 72 bytes and refuses more, so the upper bound is in bytes).
func CheckPassword(param, password string) error {
	if n := utf8.RuneCountInString(password); n < 8 || len(password) > 72 {
		return Invalidf(param, "invalid_password", "%s must be 8 characters to 72 bytes long.", param)
	}
	return nil
}

// MerchantUpdate is a partial update of merchant settings; nil fields stay as they are.
type MerchantUpdate struct {
	Name        *string
	Email       *string // the dashboard login; must stay unique
	CompanyName *string
	// DefaultReturnURL set to "" clears the default.
	DefaultReturnURL *string
	// Settlement entries replace the environment's target; a nil entry clears it.
	Settlement                  map[Environment]*Settlement
	UnderpaymentToleranceMillis *Millis
}

// Validate checks the update's fields.
func (u *MerchantUpdate) Validate() error {
	if u.Name != nil {
		if err := checkText("name", *u.Name, 255, true); err != nil {
			return err
		}
	}
	if u.Email != nil {
		if err := CheckEmail("email", *u.Email); err != nil {
			return err
		}
	}
	if u.CompanyName != nil {
		if err := checkText("company_name", *u.CompanyName, 255, true); err != nil {
			return err
		}
	}
	if u.DefaultReturnURL != nil && *u.DefaultReturnURL != "" {
		if err := CheckReturnURL("default_return_url", *u.DefaultReturnURL); err != nil {
			return err
		}
	}
	for env, s := range u.Settlement {
		param := "settlement." + string(env)
		if !env.Valid() {
			return Invalidf("settlement", "invalid_environment", "settlement keys must be devnet or mainnet.")
		}
		if s == nil {
			continue
		}
		if !networkName.MatchString(s.Network) {
			return Invalidf(param+".network", "invalid_network", "network must be a network name such as bsc or ethereum.")
		}
		if !tokenSymbol.MatchString(s.TokenSymbol) {
			return Invalidf(param+".token_symbol", "invalid_token_symbol", "token_symbol must be a token symbol such as USDT.")
		}
		if err := CheckEVMAddress(param+".address", s.Address); err != nil {
			return err
		}
	}
	if t := u.UnderpaymentToleranceMillis; t != nil && (*t < 0 || *t > MaxInvoiceAmount) {
		return Invalidf("underpayment_tolerance_usd_millis", "invalid_tolerance",
			"underpayment_tolerance_usd_millis must be between 0 and %d.", MaxInvoiceAmount)
	}
	return nil
}

// Sensitive reports whether the update changes what a stolen session could turn
// into money or into the account: the login email, a settlement target, or the
// underpayment tolerance (raised to an invoice's amount, it makes a token payment
// count as paid in full). Such an update needs the password again (and the code
// when two-step is on).
func (u *MerchantUpdate) Sensitive() bool {
	return u.Email != nil || len(u.Settlement) > 0 || u.UnderpaymentToleranceMillis != nil
}

var (
	networkName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	tokenSymbol = regexp.MustCompile(`^[A-Za-z0-9.]{1,16}$`)
)

// MerchantService manages merchant accounts and dashboard logins.
type MerchantService interface {
	// CreateMerchant stores a new merchant; the password is kept only as a slow hash.
	CreateMerchant(ctx context.Context, c MerchantCreate) (*Merchant, error)
	Merchant(ctx context.Context, id int64) (*Merchant, error)
	// MerchantByEmail finds a merchant by login email.
	MerchantByEmail(ctx context.Context, email string) (*Merchant, error)
	UpdateMerchant(ctx context.Context, id int64, u MerchantUpdate) (*Merchant, error)
	EnableMainnet(ctx context.Context, id int64) (*Merchant, error)
	// Login checks an email and password; any mismatch is the same
	// KindUnauthenticated error, so callers cannot tell which part was wrong.
	Login(ctx context.Context, email, password string) (*Merchant, error)
	// ChangePassword replaces the password when current is right (else the same
	// KindUnauthenticated error as Login) and ends every dashboard session of the
	// merchant, so a stolen session dies with the old password.
	ChangePassword(ctx context.Context, merchantID int64, current, next string) error
	// SignOutEverywhere bumps the merchant's credential version: every dashboard
	// token and session issued before ends, on every instance.
	SignOutEverywhere(ctx context.Context, merchantID int64) error
}

// CheckEmail checks that s is a plain email address of at most 255 characters.
func CheckEmail(param, s string) error {
	if len(s) > 255 {
		return Invalidf(param, "invalid_email", "%s must be at most 255 characters.", param)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return Invalidf(param, "invalid_email", "%s must be an email address.", param)
	}
	return nil
}

// checkText checks a free-text field: valid UTF-8, no control characters other than
// newlines and tabs, at most max characters, and not blank when required.
func checkText(param, s string, max int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return Invalidf(param, "invalid_"+lastPart(param), "%s must not be empty.", param)
	case !utf8.ValidString(s):
		return Invalidf(param, "invalid_"+lastPart(param), "%s must be valid UTF-8.", param)
	case utf8.RuneCountInString(s) > max:
		return Invalidf(param, lastPart(param)+"_too_long", "%s must be at most %d characters.", param, max)
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f {
			return Invalidf(param, "invalid_"+lastPart(param), "%s must not contain control characters.", param)
		}
	}
	return nil
}

func lastPart(param string) string {
	return param[strings.LastIndexByte(param, '.')+1:]
}
