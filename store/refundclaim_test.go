package store_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundByClaim: a refund is read through its claim link with the right
// token only (a wrong token, an unknown or malformed id, and a refund created
// with an address all read as 404), with its shop's name; the link keeps
// working after the claim and past the claim's expiry, where ClaimLapsed tells
// an unclaimed refund from a claimed one. Both engines.
func TestRefundByClaim(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		company := "Northwind Goods"
		_, err := f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{CompanyName: &company})
		must(t, err)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xc1", 1000, true)
		direct, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(100)), refundAddress, ""))
		must(t, err)
		claimed, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(300)), "", "token-a"))
		must(t, err)
		unclaimed, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(200)), "", "token-b"))
		must(t, err)
		hash := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

		misses := []struct {
			name, id, token string
		}{
			{"wrong token", claimed.ID, "token-b"},
			{"empty token", claimed.ID, ""},
			{"unknown id", kassa.NewUUID(), "token-a"},
			{"malformed id", "not-a-uuid", "token-a"},
			{"refund with an address", direct.ID, ""},
		}
		for _, m := range misses {
			_, err := f.db.RefundByClaim(f.ctx, m.id, hash(m.token))
			if kassa.ErrorKindOf(err) != kassa.KindNotFound {
				t.Errorf("%s: %v, want 404", m.name, err)
			}
		}

		got, err := f.db.RefundByClaim(f.ctx, claimed.ID, hash("token-a"))
		must(t, err)
		if got.Shop != company || got.Refund.ID != claimed.ID || got.Refund.Status != kassa.RefundAwaitingAddress ||
			got.Refund.AmountUnits.Cmp(claimed.AmountUnits) != 0 || got.Refund.ClaimLapsed(f.clock.Now()) {
			t.Fatalf("read %+v (shop %q)", got.Refund, got.Shop)
		}
		_, err = claimRefund(f, claimed.ID, hash("token-a"), refundAddress)
		must(t, err)

		// 30 days on: the claimed refund is still followed; the unclaimed one has lapsed.
		f.clock.Advance(kassa.RefundClaimTTL + time.Hour)
		cases := []struct {
			name, id, token string
			status          kassa.RefundStatus
			address         string
			lapsed          bool
		}{
			{"claimed", claimed.ID, "token-a", kassa.RefundPending, refundAddress, false},
			{"unclaimed", unclaimed.ID, "token-b", kassa.RefundAwaitingAddress, "", true},
		}
		for _, c := range cases {
			got, err := f.db.RefundByClaim(f.ctx, c.id, hash(c.token))
			must(t, err)
			if got.Refund.Status != c.status || got.Refund.Address != c.address || got.Refund.ClaimLapsed(f.clock.Now()) != c.lapsed {
				t.Errorf("%s: %s %q lapsed %v", c.name, got.Refund.Status, got.Refund.Address, got.Refund.ClaimLapsed(f.clock.Now()))
			}
		}
	})
}
