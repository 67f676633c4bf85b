package merchants

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// Settings is a settings form as submitted whole (the dashboard's): every field
// with the value it should have.
type Settings struct {
	CompanyName string
	// DefaultReturnURL "" is none.
	DefaultReturnURL string
	// Settlement is the target wanted per environment; an environment absent, or
	// with every part empty, is none.
	Settlement                  map[kassa.Environment]kassa.Settlement
	UnderpaymentToleranceMillis kassa.Millis
}

// Changes is the update that takes m to want: only the fields that differ, so
// an unchanged settlement target or tolerance needs no proof.
func Changes(m *kassa.Merchant, want Settings) kassa.MerchantUpdate {
	var u kassa.MerchantUpdate
	if want.CompanyName != m.CompanyName {
		u.CompanyName = &want.CompanyName
	}
	var cur string
	if m.DefaultReturnURL != nil {
		cur = *m.DefaultReturnURL
	}
	if want.DefaultReturnURL != cur {
		u.DefaultReturnURL = &want.DefaultReturnURL // "" clears it
	}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		st := want.Settlement[env]
		cur, had := m.Settlement[env]
		switch {
		case st == kassa.Settlement{} && had:
			u.Settlement = setTarget(u.Settlement, env, nil)
		case st != kassa.Settlement{} && (!had || st != cur):
			u.Settlement = setTarget(u.Settlement, env, &st)
		}
	}
	if want.UnderpaymentToleranceMillis != m.UnderpaymentToleranceMillis {
		u.UnderpaymentToleranceMillis = &want.UnderpaymentToleranceMillis
	}
	return u
}

// SaveSettings applies the changes of want to m (Changes), as Update does.
func (s *Service) SaveSettings(ctx context.Context, m *kassa.Merchant, want Settings, p signin.Proof) (*kassa.Merchant, error) {
	return s.Update(ctx, m.ID, Changes(m, want), p)
}

func setTarget(m map[kassa.Environment]*kassa.Settlement, env kassa.Environment, st *kassa.Settlement) map[kassa.Environment]*kassa.Settlement {
	if m == nil {
		m = map[kassa.Environment]*kassa.Settlement{}
	}
	m[env] = st
	return m
}
