package merchants_test

import (
	"reflect"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/merchants"
)

// TestChanges: a settings form changes only the fields that differ from the
// merchant's; an emptied settlement target or return URL clears it.
func TestChanges(t *testing.T) {
	target := kassa.Settlement{Network: "bsc", TokenSymbol: "USDT", Address: "0x52908400098527886E0F7030069857D2E4169EE7"}
	other := kassa.Settlement{Network: "ethereum", TokenSymbol: "USDC", Address: target.Address}
	m := &kassa.Merchant{ID: 1, CompanyName: "Acme", DefaultReturnURL: ptr("https://acme.example/thanks"),
		Settlement: map[kassa.Environment]kassa.Settlement{kassa.Devnet: target}, UnderpaymentToleranceMillis: 500}
	same := merchants.Settings{CompanyName: "Acme", DefaultReturnURL: "https://acme.example/thanks",
		Settlement: map[kassa.Environment]kassa.Settlement{kassa.Devnet: target}, UnderpaymentToleranceMillis: 500}
	with := func(mod func(*merchants.Settings)) merchants.Settings {
		s := same
		s.Settlement = map[kassa.Environment]kassa.Settlement{kassa.Devnet: target}
		mod(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		want merchants.Settings
		u    kassa.MerchantUpdate
	}{
		{"nothing changed", same, kassa.MerchantUpdate{}},
		{"company name", with(func(s *merchants.Settings) { s.CompanyName = "Acme GmbH" }), kassa.MerchantUpdate{CompanyName: ptr("Acme GmbH")}},
		{"return URL cleared", with(func(s *merchants.Settings) { s.DefaultReturnURL = "" }), kassa.MerchantUpdate{DefaultReturnURL: ptr("")}},
		{"devnet target emptied", with(func(s *merchants.Settings) { s.Settlement[kassa.Devnet] = kassa.Settlement{} }),
			kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: nil}}},
		{"devnet target changed", with(func(s *merchants.Settings) { s.Settlement[kassa.Devnet] = other }),
			kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: &other}}},
		{"mainnet target set", with(func(s *merchants.Settings) { s.Settlement[kassa.Mainnet] = other }),
			kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Mainnet: &other}}},
		{"tolerance", with(func(s *merchants.Settings) { s.UnderpaymentToleranceMillis = 0 }),
			kassa.MerchantUpdate{UnderpaymentToleranceMillis: ptr(kassa.Millis(0))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := merchants.Changes(m, tc.want); !reflect.DeepEqual(got, tc.u) {
				t.Fatalf("Changes = %+v, want %+v", got, tc.u)
			}
		})
	}
	if u := merchants.Changes(&kassa.Merchant{}, merchants.Settings{}); !reflect.DeepEqual(u, kassa.MerchantUpdate{}) {
		t.Fatalf("an empty form for a merchant without settings: %+v", u)
	}
}
