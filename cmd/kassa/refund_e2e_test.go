package main

import (
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestCommerceRefundOnChainEndToEnd: on the real binary with the dev chain, a
// buyer checks out through the commerce API, pays the order's invoice in USDT
// with kassa pay, the order settles on chain, and its cancel through the API
// refunds the total less the fee from the gas wallet to the buyer's wallet: a
// real USDT transfer, refund.txHash set, REFUNDED once confirmed.
func TestCommerceRefundOnChainEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		const buyer = "0x00000000000000000000000000000000000b0b01"

		res := checkout(t, k, "cus_refund", firstProduct(t, k), 1)
		orderID, orderPath := res["orderId"].(string), res["endpoints"].(map[string]any)["checkOrder"].(string)

		kassaPay(t, k, res["invoiceUrl"].(string))
		order := func() map[string]any { return commerceCall(t, k, "GET", orderPath, nil)["order"].(map[string]any) }
		waitOrder(t, order, "payment_settled", func(o map[string]any) bool { return o["status"] == "payment_settled" })

		var cancelled struct {
			Data struct {
				Order map[string]any `json:"order"`
			} `json:"data"`
		}
		wantStatus(t, call(t, "POST", k.url+"/api/commerce/merchant/orders/"+orderID+"/cancel",
			map[string]string{"x-commerce-api-key": k.commerceKey, "Idempotency-Key": kassa.NewUUID()},
			map[string]any{"refundDestinationWalletAddressBsc": buyer}, &cancelled), http.StatusOK)
		if o := cancelled.Data.Order; o["status"] != "cancelled" || o["refundStatus"] != "PENDING" {
			t.Fatalf("cancelled order %v", o)
		}
		o := waitOrder(t, order, "refunded", func(o map[string]any) bool { return o["status"] == "refunded" })
		refund := o["refund"].(map[string]any)
		hash, _ := refund["txHash"].(string)
		if o["refundStatus"] != "REFUNDED" || !strings.HasPrefix(hash, "0x") || len(hash) != 66 {
			t.Fatalf("refunded order %v", o)
		}
		// The buyer holds exactly the refund: the total less the commerce fee, in USDT (6 decimals).
		want := usdMillisToUSDT(t, o["totalAmountUsd"].(string), o["commerceFeeUsd"].(string))
		if got := usdtBalance(t, k.chainURL, buyer); got.Cmp(want) != 0 {
			t.Fatalf("the buyer holds %s USDT units, want %s", got, want)
		}
		stopGracefully(t, k)
	})
}

// waitOrder polls the order until done holds (a minute at most).
func waitOrder(t *testing.T, order func() map[string]any, what string, done func(map[string]any) bool) map[string]any {
	t.Helper()
	var o map[string]any
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if o = order(); done(o) {
			return o
		}
	}
	t.Fatalf("the order never reached %s: %v", what, o)
	return nil
}

// usdMillisToUSDT is total − fee (USD decimal strings) in USDT base units at 1:1.
func usdMillisToUSDT(t *testing.T, total, fee string) *big.Int {
	t.Helper()
	tot, ok1 := kassa.ParsePrice(total)
	f, ok2 := kassa.ParsePrice(fee)
	if !ok1 || !ok2 {
		t.Fatalf("amounts %q %q", total, fee)
	}
	return new(big.Int).Mul(big.NewInt(int64(tot-f)), big.NewInt(1_000)) // millis → 6 decimals
}
