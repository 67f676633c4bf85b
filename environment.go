package kassa

// Environment separates test money from real money. Every API key, invoice and event
// belongs to one.
type Environment string

// The two environments.
const (
	Devnet  Environment = "devnet"
	Mainnet Environment = "mainnet"
)

// Valid reports whether e is a known environment.
func (e Environment) Valid() bool { return e == Devnet || e == Mainnet }

// Scope is what an API key may call: the merchant API or the commerce API.
type Scope string

// The two key scopes.
const (
	ScopeMerchant Scope = "merchant"
	ScopeCommerce Scope = "commerce"
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s == ScopeMerchant || s == ScopeCommerce }

// Principal is who is calling: a merchant through an API key or a dashboard login,
// acting in one environment.
type Principal struct {
	MerchantID  int64
	Environment Environment
	Scope       Scope  // ScopeMerchant for dashboard logins
	KeyID       string // empty for dashboard logins
	// CredentialVersion and TokenExpires (Unix seconds) are a dashboard login's
	// JWT's: the merchant's credential version it was issued under and its expiry.
	// Zero for API keys.
	CredentialVersion int64
	TokenExpires      int64
}

// Dashboard reports whether the principal logged in to the dashboard (JWT) rather
// than presenting an API key.
func (p Principal) Dashboard() bool { return p.KeyID == "" }
