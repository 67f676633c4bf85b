package api_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardRefundOwnWallet: a refund Kassa cannot pay (its payout waits
// with the reason) is offered to the merchant to pay from their own wallet,
// behind a confirmation; once chosen the page shows the exact transfer (the
// EIP-681 link, its QR code, the amount in words) and "waiting for your
// transfer", with a way to let Kassa pay it again; once the transfer is seen it
// shows the transaction, and handing it back is 409. Another merchant is 404,
// another site 403. Both engines.
func TestDashboardRefundOwnWallet(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		ctx := context.Background()
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		inv := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + inv + "/payments", body: `{"amount_usd": 10}`, headers: withKey(m.key)}), 201)
		r := e.do(request{method: "POST", path: "/api/v1/invoices/" + inv + "/refunds",
			body:    `{"amount_usd": 4, "address": "0x52908400098527886e0f7030069857d2e4169ee7"}`,
			headers: map[string]string{"x-api-key": m.key, "Idempotency-Key": newIdemKey()}})
		expectStatus(t, r, 201)
		refund := r.obj(t)
		id, units := refund["id"].(string), refund["amount_token_units"].(string)
		page := "/dashboard/invoices/" + inv
		own := page + "/refunds/" + id + "/own-wallet"
		back := page + "/refunds/" + id + "/kassa-pays"
		if strings.Contains(b.get(page).want(t, 200).body, own) {
			t.Fatal("a refund Kassa is about to pay is offered to the merchant's wallet")
		}

		// The gas wallet is short: the refund waits with the reason.
		const gas = "0x9999999999999999999999999999999999999999"
		if _, err := e.db.QueueRefunds(ctx, kassa.Devnet, "bsc-testnet", gas, nil); err != nil {
			t.Fatal(err)
		}
		open, err := e.db.OpenPayouts(ctx, kassa.Devnet, "bsc-testnet")
		if err != nil || len(open) != 1 {
			t.Fatalf("payouts %d %v", len(open), err)
		}
		if err := e.db.WaitPayout(ctx, open[0].ID, "the gas wallet holds 0 USDT"); err != nil {
			t.Fatal(err)
		}
		b.get(page).want(t, 200, "Kassa cannot pay it yet: the gas wallet holds 0 USDT", `action="`+own+`"`,
			`data-confirm="Pay this refund from your own wallet?`)

		ob := e.browser()
		ob.signIn(e.newMerchant(false))
		ob.post(own, nil).want(t, 404)
		b.post(own, nil, "Origin: http://evil.example").want(t, 403)

		for range 2 { // a second submit changes nothing
			if r := b.post(own, nil); r.status != http.StatusSeeOther || r.location != page+"#refund-"+id {
				t.Fatalf("own wallet: %d to %q\n%s", r.status, r.location, r.body)
			}
		}
		waiting := b.get(page).want(t, 200, "Send exactly <strong>4 USDT</strong> ("+units+" base units of the token contract",
			`href="ethereum:0x`, `@97/transfer?address=0x52908400098527886E0F7030069857D2E4169EE7&amp;uint256=`+units+`"`,
			`src="data:image/png;base64,`, "Waiting for your transfer.", `action="`+back+`"`)
		if strings.Contains(waiting.body, `action="`+own+`"`) {
			t.Fatal("a refund the merchant pays is still offered")
		}
		if open, _ := e.db.OpenPayouts(ctx, kassa.Devnet, "bsc-testnet"); len(open) != 0 {
			t.Fatalf("%d payouts still open", len(open))
		}

		// Handed back and taken over again.
		if r := b.post(back, nil); r.status != http.StatusSeeOther {
			t.Fatalf("back to Kassa: %d\n%s", r.status, r.body)
		}
		if open, _ := e.db.OpenPayouts(ctx, kassa.Devnet, "bsc-testnet"); len(open) != 1 {
			t.Fatalf("%d payouts open after handing it back", len(open))
		}
		if err := e.db.WaitPayout(ctx, open[0].ID, "the gas wallet holds 0 USDT still"); err != nil {
			t.Fatal(err)
		}
		b.post(own, nil)

		// The merchant's transfer is seen.
		amount, _ := new(big.Int).SetString(units, 10)
		hash := "0x" + strings.Repeat("ab", 32)
		seen, err := e.db.RecordOwnWalletTransfer(ctx, kassa.Devnet, refundTokenID(t, e, m, id), kassa.Transfer{Network: "bsc-testnet",
			TxHash: hash, Block: kassa.BlockRef{Number: 5, Hash: "0xb5"}, To: "0x52908400098527886e0f7030069857d2e4169ee7", Amount: amount})
		if err != nil || seen == nil {
			t.Fatalf("transfer seen: %v %v", seen, err)
		}
		paid := b.get(page).want(t, 200, "Paid from your own wallet", hash)
		if strings.Contains(paid.body, "Waiting for your transfer.") {
			t.Fatal("still waiting once seen")
		}
		b.post(back, nil).want(t, 409, "already signed or seen on chain")
	})
}

// refundTokenID is the token_id of refund id.
func refundTokenID(t *testing.T, e *testEnv, m *merchant, id string) int64 {
	t.Helper()
	r := e.do(request{method: "GET", path: "/api/v1/refunds/" + id, headers: withKey(m.key)})
	expectStatus(t, r, 200)
	return int64(r.obj(t)["token_id"].(float64))
}
