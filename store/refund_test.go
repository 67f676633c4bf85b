package store_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

var refundToken = kassa.Token{ID: 1, Network: "bsc-testnet", Symbol: "USDT", Decimals: 18}

// refundReq is a refund of usd (nil: all) to address ("" : a claim link whose
// token is claim).
func refundReq(usd *kassa.Millis, address, claim string) refund.Request {
	h := sha256.Sum256([]byte(claim))
	return refund.Request{ID: kassa.NewUUID(), AmountUSD: usd, Rate: kassa.RefundRatePaid, Address: address,
		Token: refundToken, ClaimHash: h[:], Reason: "returned"}
}

const refundAddress = "0x52908400098527886E0F7030069857D2E4169EE7"

// createRefund creates req on invoiceID as the refunds service does: with its
// rule (refund.DecideCreate) for p.
func createRefund(f *fixture, p kassa.Principal, invoiceID string, req refund.Request) (*kassa.Refund, error) {
	return f.db.CreateRefund(f.ctx, p.MerchantID, invoiceID, req, refund.DecideCreate(p, req))
}

// claimRefund claims refund id with the token whose hash is tokenHash, as the
// refunds service does (refund.DecideClaim).
func claimRefund(f *fixture, id string, tokenHash []byte, address string) (*kassa.Refund, error) {
	return f.db.ClaimRefund(f.ctx, id, address, refund.DecideClaim(tokenHash))
}

// payFromOwnWallet has p's merchant take refund id over, as the refunds service
// does (refund.DecideOwnWallet).
func payFromOwnWallet(f *fixture, p kassa.Principal, id string) (*kassa.Refund, error) {
	return f.db.PayRefundFromOwnWallet(f.ctx, p.MerchantID, id, refund.DecideOwnWallet(p))
}

// letKassaPay has p's merchant hand refund id back to Kassa, as the refunds
// service does (refund.DecideLetKassaPay).
func letKassaPay(f *fixture, p kassa.Principal, id string) (*kassa.Refund, error) {
	return f.db.LetKassaPayRefund(f.ctx, p.MerchantID, id, refund.DecideLetKassaPay(p))
}

// TestRefunds: a refund is planned on what the invoice's confirmed payments
// paid, stored with refund.created (data the refund as it was), read, listed
// newest first, canceled before it is sent, and claimed once with its token.
// Both engines.
func TestRefunds(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		empty := f.invoice(t, f.m, 1000, nil)
		_, err := createRefund(f, p, empty.ID, refundReq(nil, refundAddress, ""))
		wantErr(t, err, kassa.KindConflict, "nothing_to_refund")

		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xa1", 1000, true)
		_, err = createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(1001)), refundAddress, ""))
		wantErr(t, err, kassa.KindInvalid, "refund_exceeds_paid")

		first, err := createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(250)), refundAddress, ""))
		must(t, err)
		if first.Status != kassa.RefundPending || first.AmountUnits.String() != "250000000000000000" || first.TokenSymbol != "USDT" {
			t.Fatalf("first: %s %s %s", first.Status, first.AmountUnits, first.TokenSymbol)
		}
		events, err := f.recentEvents(1)
		must(t, err)
		var data struct {
			ID, Status string
			ClaimURL   *string `json:"claim_url"`
		}
		must(t, json.Unmarshal(events[0].Data, &data))
		if events[0].Type != kassa.EventRefundCreated || data.ID != first.ID || data.Status != "pending" {
			t.Fatalf("event %s %s", events[0].Type, events[0].Data)
		}
		f.clock.Advance(time.Second)
		claimed, err := createRefund(f, p, inv.ID, refundReq(nil, "", "secret"))
		must(t, err)
		if claimed.Status != kassa.RefundAwaitingAddress || claimed.AmountUSD != 750 || claimed.ClaimExpires.IsZero() {
			t.Fatalf("claim refund: %s %d", claimed.Status, claimed.AmountUSD)
		}
		_, err = createRefund(f, p, inv.ID, refundReq(nil, refundAddress, ""))
		wantErr(t, err, kassa.KindConflict, "nothing_to_refund")

		list, err := f.db.InvoiceRefunds(f.ctx, p, inv.ID)
		must(t, err)
		if len(list) != 2 || list[0].ID != claimed.ID || list[1].ID != first.ID {
			t.Fatalf("list: %d", len(list))
		}
		got, err := f.db.Refund(f.ctx, p, first.ID)
		must(t, err)
		if got.AmountUnits.Cmp(first.AmountUnits) != 0 || got.Address != refundAddress || got.Reason != "returned" {
			t.Fatalf("read: %+v", got)
		}
		other := f.merchant(t, "other@example.com")
		_, err = f.db.Refund(f.ctx, principal(other), first.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		_, err = f.db.InvoiceRefunds(f.ctx, principal(other), inv.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")

		// Claims: a wrong token is 404, the right one gives the address once.
		wrong := sha256.Sum256([]byte("guess"))
		_, err = claimRefund(f, claimed.ID, wrong[:], refundAddress)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		right := sha256.Sum256([]byte("secret"))
		c, err := claimRefund(f, claimed.ID, right[:], refundAddress)
		must(t, err)
		if c.Status != kassa.RefundPending || c.Address != refundAddress {
			t.Fatalf("claimed: %s %s", c.Status, c.Address)
		}
		_, err = claimRefund(f, claimed.ID, right[:], refundAddress)
		wantErr(t, err, kassa.KindConflict, "refund_claimed")
		if got := f.eventTypes(t, 1); got[0] != kassa.EventRefundUpdated {
			t.Fatalf("claim event %v", got)
		}

		// Canceling gives the amount back; a canceled refund is final.
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, principal(other), first.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		cn, err := (&refund.Service{Store: f.db}).Cancel(f.ctx, p, first.ID)
		must(t, err)
		if cn.Status != kassa.RefundCanceled {
			t.Fatalf("canceled: %s", cn.Status)
		}
		_, err = (&refund.Service{Store: f.db}).Cancel(f.ctx, p, first.ID)
		wantErr(t, err, kassa.KindConflict, "refund_not_cancelable")
		again, err := createRefund(f, p, inv.ID, refundReq(nil, refundAddress, ""))
		must(t, err)
		if again.AmountUSD != 250 {
			t.Fatalf("after cancel: %d refundable", again.AmountUSD)
		}

		// A claim link lapses after 30 days.
		inv2 := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv2, "0xa2", 1000, true)
		late, err := createRefund(f, p, inv2.ID, refundReq(nil, "", "secret"))
		must(t, err)
		f.clock.Advance(kassa.RefundClaimTTL)
		_, err = claimRefund(f, late.ID, right[:], refundAddress)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

// TestRefundsConcurrent: ten refunds of 300 USD created at once on an invoice
// paid 1000 USD: exactly three are stored, the others exceed what is paid.
// Both engines.
func TestRefundsConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xc1", 1000, true)
		var wg sync.WaitGroup
		errs := make([]error, 10)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = createRefund(f, p, inv.ID, refundReq(ptr(kassa.Millis(300)), refundAddress, ""))
			}()
		}
		wg.Wait()
		ok, codes := 0, map[string]int{}
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			codes[kassa.ErrorCode(err)]++
		}
		if ok != 3 || codes["refund_exceeds_paid"] != 7 {
			t.Fatalf("%d created, errors %v", ok, codes)
		}
		list, err := f.db.InvoiceRefunds(f.ctx, p, inv.ID)
		must(t, err)
		var sum kassa.Millis
		for _, r := range list {
			sum += r.AmountUSD
		}
		if sum != 900 {
			t.Fatalf("stored %s USD of refunds", fmt.Sprint(sum.Decimal()))
		}
	})
}
