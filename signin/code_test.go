package signin_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

const secret = "JBSWY3DPEHPK3PXP"

// checking is the real store, counting the codes checked: secondfactor.Verify
// reads the secret once per code. onCheck, when set, runs at that moment.
type checking struct {
	*store.DB
	checks  atomic.Int64
	onCheck func()
}

func (c *checking) TOTPSecret(ctx context.Context, merchantID int64) (string, error) {
	c.checks.Add(1)
	if c.onCheck != nil {
		c.onCheck()
	}
	return c.DB.TOTPSecret(ctx, merchantID)
}

func totpCode(t *testing.T, at time.Time) string {
	t.Helper()
	return codeOf(t, secret, at)
}

// codeOf is the code of key at.
func codeOf(t *testing.T, key string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(key, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wrongCode is a code that is none of the secret's around now.
func wrongCode(t *testing.T) string {
	t.Helper()
	now := time.Now()
	for _, c := range []string{"000000", "111111", "222222", "333333"} {
		if c != totpCode(t, now.Add(-30*time.Second)) && c != totpCode(t, now) && c != totpCode(t, now.Add(30*time.Second)) {
			return c
		}
	}
	t.Fatal("no wrong code")
	return ""
}

// newTwoStep opens cfg with a merchant that has two-step sign-in on and returns
// the counting store, the service over it and a half sign-in maker.
func newTwoStep(t *testing.T, cfg store.Config) (*checking, *signin.Service, func() string) {
	t.Helper()
	ctx := context.Background()
	st := &checking{DB: storetest.Open(t, cfg)}
	m, err := st.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "shop@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnableTOTP(ctx, m.ID, secret, 1); err != nil {
		t.Fatal(err)
	}
	half := func() string {
		t.Helper()
		signed, err := st.Login(ctx, m.Email, "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		token := kassa.NewDashboardToken()
		if _, err := st.CreateDashboardSignIn(ctx, token, m.ID, signed.CredentialVersion, kassa.Devnet); err != nil {
			t.Fatal(err)
		}
		return token
	}
	return st, signin.New(st, st, time.Now), half
}

// TestCodeTriesConcurrent: 20 concurrent wrong codes on one half sign-in get
// at most kassa.DashboardCodeTries of them checked, and the half sign-in is void.
func TestCodeTriesConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		st, svc, newHalf := newTwoStep(t, cfg)
		half, wrong := newHalf(), wrongCode(t)
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Code(context.Background(), half, wrong)
				switch kassa.ErrorCode(err) {
				case "invalid_code", "sign_in_void", "session_ended":
				default:
					t.Errorf("a wrong code: %v", err)
				}
			}()
		}
		wg.Wait()
		if n := st.checks.Load(); n > kassa.DashboardCodeTries {
			t.Fatalf("%d of 20 concurrent codes were checked, want at most %d", n, kassa.DashboardCodeTries)
		}
		if _, err := svc.Code(context.Background(), half, totpCode(t, time.Now())); err == nil {
			t.Fatal("a right code after the half sign-in was voided signed in")
		}
	})
}

// TestCodeOnEndedSignIn: a right code whose half sign-in another request ends
// (voids) while it is being checked does not sign in.
func TestCodeOnEndedSignIn(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		st, svc, newHalf := newTwoStep(t, cfg)
		half := newHalf()
		st.onCheck = func() { // another request voids it now
			st.onCheck = nil
			if err := st.DeleteDashboardSession(context.Background(), half); err != nil {
				t.Error(err)
			}
		}
		if s, err := svc.Code(context.Background(), half, totpCode(t, time.Now())); kassa.ErrorCode(err) != "session_ended" {
			t.Fatalf("a right code on a half sign-in voided meanwhile: %+v, %v; want session_ended", s, err)
		}
		// Without that, a right code signs in (with a fresh half sign-in: the
		// code's step was used above).
		half = newHalf()
		if s, err := svc.Code(context.Background(), half, totpCode(t, time.Now().Add(30*time.Second))); err != nil || s == "" {
			t.Fatalf("a right code: %+v, %v", s, err)
		}
	})
}
