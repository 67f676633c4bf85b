package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/signin"
)

// merchantJSON is the merchant settings object of GET and PATCH /api/v1/merchant.
type merchantJSON struct {
	ID                    int64                        `json:"id"`
	Object                string                       `json:"object"`
	Name                  string                       `json:"name"`
	Email                 string                       `json:"email"`
	CompanyName           string                       `json:"company_name"`
	DefaultReturnURL      *string                      `json:"default_return_url"`
	Settlement            map[string]*kassa.Settlement `json:"settlement"`
	UnderpaymentTolerance int64                        `json:"underpayment_tolerance_usd_millis"`
	MainnetEnabled        bool                         `json:"mainnet_enabled"`
	CreatedAt             string                       `json:"created_at"`
}

func merchantView(m *kassa.Merchant) merchantJSON {
	settlement := map[string]*kassa.Settlement{string(kassa.Devnet): nil, string(kassa.Mainnet): nil}
	for env, st := range m.Settlement {
		st := st
		settlement[string(env)] = &st
	}
	ret := m.DefaultReturnURL
	if ret != nil && *ret == "" {
		ret = nil
	}
	return merchantJSON{
		ID: m.ID, Object: "merchant", Name: m.Name, Email: m.Email, CompanyName: m.CompanyName,
		DefaultReturnURL: ret, Settlement: settlement, UnderpaymentTolerance: int64(m.UnderpaymentToleranceMillis),
		MainnetEnabled: m.MainnetEnabled, CreatedAt: kassa.FormatTime(m.CreatedAt),
	}
}

// GetMerchant serves GET /api/v1/merchant.
func (a *API) GetMerchant(w http.ResponseWriter, r *http.Request) error {
	m, err := a.merchants.Merchant(r.Context(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, merchantView(m))
	return nil
}

// PatchMerchant serves PATCH /api/v1/merchant: a partial update of name, email, company_name,
// default_return_url, settlement and underpayment_tolerance_usd_millis. Changing the email
// or a settlement target needs current_password (and code when two-step sign-in is on): 403
// without them (merchants.Service.Update decides).
func (a *API) PatchMerchant(w http.ResponseWriter, r *http.Request) error {
	u, proof, err := decodeMerchantUpdate(r)
	if err != nil {
		return err
	}
	m, err := a.accounts.Update(r.Context(), httpx.Principal(r.Context()).MerchantID, u, proof)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, merchantView(m))
	return nil
}

// readOnlyMerchantFields are merchant fields a PATCH may not change.
var readOnlyMerchantFields = map[string]bool{
	"id": true, "object": true, "mainnet_enabled": true, "created_at": true,
}

// decodeMerchantUpdate reads a merchant PATCH body strictly (merchants.Service
// checks what it holds); the proof (current_password, code) is what a sensitive
// change needs.
func decodeMerchantUpdate(r *http.Request) (kassa.MerchantUpdate, signin.Proof, error) {
	var (
		u     kassa.MerchantUpdate
		proof signin.Proof
	)
	err := httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "current_password":
			proof.Password, err = httpx.ReqString(f)
		case "code":
			proof.Code, err = httpx.ReqString(f)
		case "name":
			var v string
			if v, err = httpx.ReqString(f); err == nil {
				u.Name = &v
			}
		case "email":
			var v string
			if v, err = httpx.ReqString(f); err == nil {
				u.Email = &v
			}
		case "company_name":
			var v string
			if v, err = httpx.ReqString(f); err == nil {
				u.CompanyName = &v
			}
		case "default_return_url":
			var v *string
			if v, err = httpx.OptString(f); err == nil {
				if v == nil {
					v = new(string)
				}
				u.DefaultReturnURL = v
			}
		case "settlement":
			u.Settlement, err = decodeSettlements(f)
		case "underpayment_tolerance_usd_millis":
			var n int64
			if n, err = httpx.Integer(f, "invalid_tolerance"); err == nil {
				t := kassa.Millis(n)
				u.UnderpaymentToleranceMillis = &t
			}
		default:
			if readOnlyMerchantFields[f.Key] {
				return true, httpx.ErrInvalid(f.Key, "read_only_parameter", f.Key+" cannot be changed through the API.")
			}
			return false, nil
		}
		return true, err
	})
	return u, proof, err
}

// decodeSettlements reads settlement: null (clear both environments) or an object
// keyed by environment whose values are a target or null.
func decodeSettlements(f httpx.Field) (map[kassa.Environment]*kassa.Settlement, error) {
	if f.Null() {
		return map[kassa.Environment]*kassa.Settlement{kassa.Devnet: nil, kassa.Mainnet: nil}, nil
	}
	out := map[kassa.Environment]*kassa.Settlement{}
	err := httpx.DecodeObject(f, func(e httpx.Field) (bool, error) {
		env := kassa.Environment(e.Key)
		if !env.Valid() {
			return true, httpx.ErrInvalid(e.Path, "invalid_environment", "settlement keys must be devnet or mainnet.")
		}
		if e.Null() {
			out[env] = nil
			return true, nil
		}
		st, err := decodeSettlement(e)
		out[env] = st
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeSettlement reads one settlement target {network, token_symbol, address}.
func decodeSettlement(f httpx.Field) (*kassa.Settlement, error) {
	var st kassa.Settlement
	dst := map[string]*string{"network": &st.Network, "token_symbol": &st.TokenSymbol, "address": &st.Address}
	seen := map[string]bool{}
	err := httpx.DecodeObject(f, func(p httpx.Field) (known bool, err error) {
		d, ok := dst[p.Key]
		if !ok {
			return false, nil
		}
		*d, err = httpx.ReqString(p)
		seen[p.Key] = true
		return true, err
	})
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"network", "token_symbol", "address"} {
		if !seen[k] {
			return nil, httpx.ErrMissing(httpx.JoinPath(f.Path, k))
		}
	}
	return &st, nil
}
