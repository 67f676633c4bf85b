package main

import (
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundTimesFigure measures, on serve --dev (its dev chain makes a block a
// second and the network wants 3 confirmations), how long a refund takes from
// the payor's claim to confirmed, and how long an accept takes to make an
// invoice paid. A measurement, not a check: it runs only with
// KASSA_REFUND_TIMES=1 and logs "figure:" lines (docs/performance.md, "Refunds").
//
//	KASSA_REFUND_TIMES=1 go test ./cmd/kassa -run TestRefundTimesFigure -v -timeout 15m
func TestRefundTimesFigure(t *testing.T) {
	if os.Getenv("KASSA_REFUND_TIMES") == "" {
		t.Skip("a measurement: set KASSA_REFUND_TIMES=1 to run it")
	}
	const rounds = 5
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		key := map[string]string{"x-api-key": k.merchantKey}
		var toSent, toConfirmed, accepts, toPaid []time.Duration
		for i := range rounds {
			payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 10})
			kassaPay(t, k, payURL)
			ref := createRefund(t, k, id, map[string]any{"amount_usd": 2})
			u, err := url.Parse(ref["claim_url"].(string))
			if err != nil {
				t.Fatal(err)
			}
			payor := fmt.Sprintf("0x00000000000000000000000000000000000c1a%02d", i)
			began := time.Now()
			wantStatus(t, call(t, "POST", k.url+"/api/v1/refunds/"+ref["id"].(string)+"/claim", nil,
				map[string]string{"token": u.Query().Get("t"), "address": payor}, nil), http.StatusOK)
			var sent time.Duration
			for {
				var r map[string]any
				wantStatus(t, call(t, "GET", k.url+"/api/v1/refunds/"+ref["id"].(string), key, nil, &r), 200)
				if r["status"] == "sent" && sent == 0 {
					sent = time.Since(began)
				}
				if r["status"] == "confirmed" {
					toConfirmed = append(toConfirmed, time.Since(began))
					toSent = append(toSent, sent)
					break
				}
				if time.Since(began) > time.Minute {
					t.Fatalf("the refund never confirmed: %v", r)
				}
				time.Sleep(20 * time.Millisecond)
			}

			// Ten USDC to an invoice locked to USDT, accepted once it has its
			// confirmations.
			payURL, id = pageInvoice(t, k, map[string]any{"amount_usd": 10})
			addr := lockUSDT(t, k, payURL)
			sendUSDC(t, k.chainURL, devchain.Accounts()[7].PrivateKey, addr, big.NewInt(10_000_000))
			pay := waitPayment(t, k, id, "wrong_token")
			for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				began = time.Now()
				var answer map[string]any
				resp := call(t, "POST", k.url+"/api/v1/invoices/"+id+"/payments/"+pay+"/accept", key, map[string]any{}, &answer)
				if resp.StatusCode == http.StatusOK {
					accepts = append(accepts, time.Since(began))
					break
				}
				if resp.StatusCode != http.StatusConflict || time.Now().After(end) {
					t.Fatalf("accept answered %d %v", resp.StatusCode, answer)
				}
			}
			if st := invoiceStatus(t, k, id); st != "paid" {
				t.Fatalf("after the accept the invoice is %s", st)
			}
			toPaid = append(toPaid, time.Since(began))
		}
		figure(t, "claim to sent %v, to confirmed %v (median of %d)", median(toSent), median(toConfirmed), rounds)
		figure(t, "accept answered %v, invoice read paid %v after the accept was sent (median of %d)",
			median(accepts), median(toPaid), rounds)
	})
}

// lockUSDT locks the invoice of payURL to the dev chain's USDT and returns its
// deposit address.
func lockUSDT(t *testing.T, k *instance, payURL string) string {
	t.Helper()
	var tokens []struct {
		ID      int64  `json:"id"`
		Symbol  string `json:"token_symbol"`
		Network string `json:"network"`
	}
	availableTokens(t, payURL, &tokens)
	var usdt int64
	for _, tk := range tokens {
		if tk.Network == "devchain" && tk.Symbol == "USDT" {
			usdt = tk.ID
		}
	}
	s, err := openSession(payURL)
	if err != nil {
		t.Fatal(err)
	}
	var addr struct{ Address string }
	wantStatus(t, call(t, "POST", k.url+"/api/v1/payments/payment-address",
		map[string]string{"X-Session-Token": s.token, "X-Signature": s.signature}, map[string]any{"token_id": usdt}, &addr), 200)
	return addr.Address
}

// median is the middle of ds, rounded to the millisecond.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond)
}
