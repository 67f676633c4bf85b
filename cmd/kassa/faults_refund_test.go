package main

import (
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestFaultKillRefund kills serve with SIGKILL over and over while it pays an
// invoice refund on the dev chain (run beside it, as an operator's node), at
// growing moments after each start, and restarts it on the same data dir and
// database; after each kill it notes how far the refund had come (queued,
// signed and stored (perhaps broadcast), mined). The refund ends confirmed, and the payor's address
// received exactly one transfer of exactly the refund's units. The chain tests
// (chain/refundfault_test.go) stop a sender at each of those points on purpose;
// this one does it to the real process.
func TestFaultKillRefund(t *testing.T) {
	faultsOn(t)
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		dev, err := devchain.Start(devchain.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", BlockTime: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		keys := clearMasterKeys(t, t.TempDir())
		k := newFaultKassa(t, cfg, "KASSA_RPC=devchain="+dev.URL(), "KASSA_DEVNET_MASTER_KEY="+keys[kassa.Devnet],
			"KASSA_MAINNET_MASTER_KEY="+keys[kassa.Mainnet])
		fundGasWallet(t, dev, keys[kassa.Devnet])
		k.in.chainURL, k.in.merchantKey = dev.URL(), k.key
		payURL, id := pageInvoice(t, k.in, map[string]any{"amount_usd": 10})
		kassaPay(t, k.in, payURL)

		const payor = "0x00000000000000000000000000000000000b0b07"
		ref := createRefund(t, k.in, id, map[string]any{"amount_usd": 4, "address": payor})
		refID := ref["id"].(string)
		raw := storetest.RawDB(t, k.cfg)
		seen := map[string]int{}
		began := time.Now()
		for i, wait := 0, time.Duration(0); ; i, wait = i+1, wait+150*time.Millisecond {
			time.Sleep(wait)
			k.kill()
			stage := refundStage(t, raw, dev.URL(), refID, payor)
			seen[stage]++
			t.Logf("kill %d, %v after its start: %s", i+1, wait, stage)
			k.start()
			k.in.chainURL, k.in.merchantKey = dev.URL(), k.key
			if stage == "confirmed" || i == 20 {
				break
			}
		}
		done := waitRefund(t, k.in, refID)
		// Nothing can be sent again once the refund's payout is done and none of its
		// stored transactions is pending: what is on chain now is all there will be.
		for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			open := count(t, raw, fmt.Sprintf("SELECT COUNT(*) FROM payouts WHERE refund_id = '%s' AND status <> '%s'", refID, outbox.PayoutDone)) +
				count(t, raw, fmt.Sprintf(`SELECT COUNT(*) FROM outbox_txs o JOIN payouts p ON o.payout_id = p.id
					WHERE p.refund_id = '%s' AND o.status = '%s'`, refID, outbox.TxPending))
			if open == 0 {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("the refund's payout or its transactions still open a minute after it confirmed (%d)", open)
			}
		}
		hashes, sum := transfersTo(t, dev.URL(), payor)
		if len(hashes) != 1 || sum.Cmp(big.NewInt(4_000_000)) != 0 || !strings.EqualFold(hashes[0], done["tx_hash"].(string)) {
			t.Fatalf("transfers to the payor %v (%s units), refund %v", hashes, sum, done)
		}
		figure(t, "refund confirmed %v after its creation through kills when it was %v",
			time.Since(began).Round(time.Second), seen)
	})
}

// refundStage says how far refund id has come, from the store and the chain.
func refundStage(t *testing.T, db *sql.DB, chainURL, id, payor string) string {
	t.Helper()
	status := ""
	if err := db.QueryRow("SELECT status FROM refunds WHERE id = $1", id).Scan(&status); err != nil {
		t.Fatal(err)
	}
	payouts := count(t, db, fmt.Sprintf("SELECT COUNT(*) FROM payouts WHERE refund_id = '%s'", id))
	stored := count(t, db, fmt.Sprintf(`SELECT COUNT(*) FROM outbox_txs o JOIN payouts p ON o.payout_id = p.id
		WHERE p.refund_id = '%s'`, id))
	mined, _ := transfersTo(t, chainURL, payor)
	switch {
	case status == string(kassa.RefundConfirmed):
		return "confirmed"
	case len(mined) > 0:
		return "mined"
	case stored > 0:
		return "signed"
	case payouts > 0:
		return "queued"
	}
	return "created"
}
