package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/webhook"
)

// killMerchantAddress receives the merchant's settlements in
// TestInstanceKilledMidWork (an address nobody else uses on the fresh dev chain).
const killMerchantAddress = "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199"

// TestInstanceKilledMidWork: three kassa serve processes on one PostgreSQL watch
// one dev chain (run here, in the test, and given to each with --rpc). A slow
// webhook receiver, 90 invoices created through all three, 60 of them paid with
// kassa pay on the chain; when half are paid, with sweeps open and deliveries in
// flight, the instance holding the chain-send lease is killed with SIGKILL. The
// survivors finish everything: every receipt settled by exactly one transfer (the
// merchant's USDT balance is exactly what was paid), every event delivered, and a
// webhook-id seen twice only for a delivery that was in flight at the kill, with
// the same body (at least once, per Standard Webhooks). The figures are logged.
//
//	KASSA_TEST_POSTGRES_DSN=postgres://... go test ./cmd/kassa -run TestInstanceKilledMidWork -v
func TestInstanceKilledMidWork(t *testing.T) {
	if os.Getenv(storetest.PostgresDSNEnv) == "" {
		t.Skip(storetest.PostgresDSNEnv + " is not set")
	}
	const invoices, paid, payors = 90, 60, 6
	dev, err := devchain.Start(devchain.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", BlockTime: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	cl := startCluster(t, []string{"KASSA_CREATE_RATE_LIMIT=1000", "KASSA_CREATE_RATE_BURST=1000",
		"KASSA_RATE_LIMIT=1000", "KASSA_RATE_BURST=1000"}, "--rpc", "devchain="+dev.URL(),
		"--webhook-allow-private") // the receiver is on loopback
	all := []*instance{cl.a, cl.b, cl.c}
	for _, in := range all {
		in.chainURL, in.merchantKey = dev.URL(), cl.key.APIKey
	}
	fundGasWallet(t, dev, cl.masterKeys[kassa.Devnet])
	wantStatus(t, call(t, "PATCH", cl.a.url+"/api/v1/merchant", cl.jwt, map[string]any{"settlement": map[string]any{
		"devnet": map[string]string{"network": devNetwork, "token_symbol": "USDT", "address": killMerchantAddress}},
		"current_password": "correct horse"}, nil), 200)
	rcv := newSlowReceiver(t)
	var ep struct{ ID, Secret string }
	wantStatus(t, call(t, "POST", cl.b.url+"/api/v1/webhook-endpoints", map[string]string{"x-api-key": cl.key.APIKey},
		map[string]any{"url": rcv.srv.URL + "/hooks", "enabled_events": []string{"*"}}, &ep), 201)
	rcv.verifyWith(t, ep.Secret)

	raw := storetest.RawDB(t, cl.db)
	victim, survivors := pickVictim(t, raw, all)

	// Invoices through all three instances; the payors follow theirs through the
	// survivors (any instance serves any payment session).
	type invoice struct{ id, payURL string }
	var list []invoice
	for i := range invoices {
		in := all[i%3]
		payURL, id := pageInvoice(t, in, map[string]any{"amount_usd": json.Number(fmt.Sprintf("%d.%02d", 1+i%9, 25*(i%4)))})
		list = append(list, invoice{id, survivors[i%2].url + strings.TrimPrefix(payURL, in.url)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	units := make([]*big.Int, paid) // what each payment sent on chain
	var done atomic.Int32
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }() // no payor outlives the test
	next := make(chan int)
	for p := range payors {
		key := devchain.Accounts()[p].PrivateKey
		wg.Go(func() {
			for i := range next {
				u, err := payOnChain(ctx, list[i].payURL, dev.URL(), key)
				if err != nil {
					t.Errorf("invoice %s: %v", list[i].id, err)
				}
				units[i] = u
				done.Add(1)
			}
		})
	}
	go func() {
		defer close(next)
		for i := range paid {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()

	// The kill, once half the payments are in, sweeps are open and deliveries are
	// in flight (or after a minute, whatever holds then).
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if done.Load() >= paid/2 && count(t, raw, openPayoutsSQL) > 0 && rcv.inFlight.Load() > 0 {
			break
		}
	}
	t.Logf("at the kill: %d of %d paid, %d sweeps open, %d receipts unsettled, %d deliveries pending, %d in flight at the receiver",
		done.Load(), paid, count(t, raw, openPayoutsSQL), count(t, raw, unsettledSQL), count(t, raw, pendingDeliveriesSQL), rcv.inFlight.Load())
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.exited
	killed := time.Now()
	rcv.markKill(killed)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	settledIn := waitUntil(t, 3*time.Minute, func() string {
		return stuckReceipts(t, raw, paid)
	}).Sub(killed)
	deliveredIn := waitUntil(t, 3*time.Minute, func() string {
		if n := count(t, raw, pendingDeliveriesSQL); n > 0 {
			return fmt.Sprintf("%d deliveries pending", n)
		}
		return ""
	}).Sub(killed)

	// Settlement: one receipt per paid invoice, settled by its own transfer, and
	// exactly the money paid at the merchant's address.
	want := new(big.Int)
	hashes := map[string]string{} // settlement tx hash → invoice
	for i := range paid {
		want.Add(want, units[i])
		ps := invoicePayments(t, survivors[i%2], list[i].id)
		if len(ps) != 1 || ps[0].Settlement != "settled" || ps[0].AmountUnits != units[i].String() ||
			ps[0].SettlementTx == nil || len(*ps[0].SettlementTx) != 66 {
			t.Fatalf("invoice %s paid %s: payments %+v", list[i].id, units[i], ps)
		}
		if other, dup := hashes[*ps[0].SettlementTx]; dup {
			t.Fatalf("invoices %s and %s settled by the same transaction %s", other, list[i].id, *ps[0].SettlementTx)
		}
		hashes[*ps[0].SettlementTx] = list[i].id
	}
	transfers, sum := transfersTo(t, dev.URL(), killMerchantAddress)
	for _, h := range transfers {
		if _, ok := hashes[h]; !ok {
			t.Errorf("transfer %s to the merchant is no receipt's settlement", h)
		}
	}
	if got := usdtBalance(t, dev.URL(), killMerchantAddress); got.Cmp(want) != 0 || sum.Cmp(want) != 0 || len(transfers) != paid {
		t.Fatalf("merchant holds %s USDT units from %d transfers (summing %s); paid %s in %d payments", got, len(transfers), sum, want, paid)
	}

	// Webhooks: every event delivered with its id; a second copy only of what was in
	// flight at the kill, at most one per webhook worker of the killed instance.
	events := listEvents(t, survivors[0], cl.key.APIKey)
	dups := rcv.check(t, events, webhook.DefaultWorkers)
	t.Logf("%d invoices (%d paid) through 3 instances; killed %s; %d events, %d deliveries received, %d duplicates (in flight at the kill)",
		invoices, paid, victim.url, len(events), rcv.total(), dups)
	t.Logf("%d settlements, one transfer each (%s USDT units); kill to every receipt settled %v, to every event delivered %v",
		len(transfers), want, settledIn.Round(time.Millisecond), deliveredIn.Round(time.Millisecond))
}

// SQL the test polls while it waits.
const (
	openPayoutsSQL       = "SELECT count(*) FROM payouts WHERE status IN ('queued', 'funding', 'sending')"
	unsettledSQL         = "SELECT count(*) FROM receipts WHERE settlement_status <> 'settled'"
	pendingDeliveriesSQL = "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'"
)

// count runs a count query.
func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitUntil polls every 100 ms until busy reports nothing left to wait for, and
// returns when; after limit it fails the test with what busy reported.
func waitUntil(t *testing.T, limit time.Duration, busy func() string) time.Time {
	t.Helper()
	left := ""
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if left = busy(); left == "" {
			return time.Now()
		}
	}
	t.Fatalf("still waiting after %v: %s", limit, left)
	return time.Time{}
}

// stuckReceipts describes the receipts not yet settled, "" when all of want are.
func stuckReceipts(t *testing.T, db *sql.DB, want int) string {
	t.Helper()
	rows, err := db.Query(`SELECT r.settlement_status, COALESCE(p.status, 'no payout'), count(*) FROM receipts r
		LEFT JOIN payouts p ON p.id = r.payout_id GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var groups []string
	settled := 0
	for rows.Next() {
		var status, payout string
		var n int
		if err := rows.Scan(&status, &payout, &n); err != nil {
			t.Fatal(err)
		}
		if status == "settled" {
			settled += n
		}
		groups = append(groups, fmt.Sprintf("%d %s (payout %s)", n, status, payout))
	}
	if settled == want {
		return ""
	}
	return fmt.Sprintf("receipts: %s; want %d settled", strings.Join(groups, ", "), want)
}
