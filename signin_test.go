package kassa

import (
	"bytes"
	"testing"
	"time"
)

func TestSignInHold(t *testing.T) {
	for _, tc := range []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 0}, {4, 0},
		{5, 30 * time.Second}, {6, time.Minute}, {7, 2 * time.Minute}, {8, 4 * time.Minute}, {9, 8 * time.Minute},
		{10, 15 * time.Minute}, {11, 15 * time.Minute}, {1000, 15 * time.Minute},
	} {
		if got := SignInHold(tc.failures); got != tc.want {
			t.Errorf("SignInHold(%d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}

func TestSignInAccount(t *testing.T) {
	if !bytes.Equal(SignInAccount(" Owner@Example.COM "), SignInAccount("owner@example.com")) {
		t.Error("an email's account depends on its case or spaces")
	}
	if bytes.Equal(SignInAccount("a@example.com"), SignInAccount("b@example.com")) {
		t.Error("two emails share an account")
	}
}

func TestMerchantUpdateSensitive(t *testing.T) {
	s, name := "x", "Shop"
	tol := Millis(5)
	for _, tc := range []struct {
		name string
		u    MerchantUpdate
		want bool
	}{
		{"nothing", MerchantUpdate{}, false},
		{"name, company, return URL", MerchantUpdate{Name: &name, CompanyName: &name, DefaultReturnURL: &s}, false},
		{"the underpayment tolerance", MerchantUpdate{UnderpaymentToleranceMillis: &tol}, true},
		{"email", MerchantUpdate{Email: &s}, true},
		{"a settlement target", MerchantUpdate{Settlement: map[Environment]*Settlement{Devnet: {Network: "bsc"}}}, true},
		{"a settlement cleared", MerchantUpdate{Settlement: map[Environment]*Settlement{Mainnet: nil}}, true},
	} {
		if got := tc.u.Sensitive(); got != tc.want {
			t.Errorf("%s: Sensitive() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
