package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/registry"
)

// fundGasWallet funds the dev chain's gas wallet of the devnet master key xprv,
// as serve --dev does for its own chain.
func fundGasWallet(t *testing.T, dev *devchain.Chain, xprv string) {
	t.Helper()
	w, err := hdwallet.Parse(kassa.Devnet, xprv)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := registry.Default().Network(kassa.Devnet, devNetwork)
	gas, err := w.GasAddress(n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Fund(context.Background(), gas); err != nil {
		t.Fatal(err)
	}
}

// pickVictim waits until an instance holds the dev chain's send lease and returns
// it, and the other two. It logs who holds which lease.
func pickVictim(t *testing.T, db *sql.DB, all []*instance) (*instance, []*instance) {
	t.Helper()
	byPID := map[string]*instance{}
	for _, in := range all {
		byPID[strconv.Itoa(in.cmd.Process.Pid)] = in
	}
	holders := map[string]*instance{}
	waitUntil(t, 30*time.Second, func() string {
		rows, err := db.Query("SELECT name, holder FROM leases")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name, holder string
			if err := rows.Scan(&name, &holder); err != nil {
				t.Fatal(err)
			}
			if parts := strings.Split(holder, "/"); len(parts) == 3 {
				holders[name] = byPID[parts[1]]
			}
		}
		if holders["chain-send:"+devNetwork] == nil {
			return "no instance holds chain-send:" + devNetwork
		}
		return ""
	})
	victim := holders["chain-send:"+devNetwork]
	var survivors []*instance
	for _, in := range all {
		if in != victim {
			survivors = append(survivors, in)
		}
	}
	for name, in := range holders {
		if in != nil {
			t.Logf("lease %s: held by the instance at %s (pid %d)", name, in.url, in.cmd.Process.Pid)
		}
	}
	t.Logf("the victim: %s (pid %d)", victim.url, victim.cmd.Process.Pid)
	return victim, survivors
}

// paying is the line kassa pay prints before it sends.
var paying = regexp.MustCompile(`(?m)^paying ([0-9.]+) USDT on devchain to 0x`)

// payOnChain pays an invoice's payment URL with kassa pay from the account of key
// and returns the USDT base units it sent.
func payOnChain(ctx context.Context, payURL, rpc, key string) (*big.Int, error) {
	out, err := exec.CommandContext(ctx, kassaBin, "pay", payURL, "--rpc", rpc, "--key", key, "--timeout", "3m").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("kassa pay: %v\n%s", err, out)
	}
	m := paying.FindSubmatch(out)
	if m == nil || !strings.Contains(string(out), "invoice paid") {
		return nil, fmt.Errorf("kassa pay printed:\n%s", out)
	}
	r, ok := new(big.Rat).SetString(string(m[1]))
	if !ok || !r.Mul(r, big.NewRat(1_000_000, 1)).IsInt() {
		return nil, fmt.Errorf("kassa pay paid %q USDT", m[1])
	}
	return r.Num(), nil
}

// kassaPayment is the part of an invoice_payment object the test reads.
type kassaPayment struct {
	Status       string  `json:"status"`
	AmountUnits  string  `json:"amount_token_units"`
	Settlement   string  `json:"settlement_status"`
	SettlementTx *string `json:"settlement_tx_hash"`
}

// invoicePayments reads an invoice's payments with the merchant key.
func invoicePayments(t *testing.T, k *instance, id string) []kassaPayment {
	t.Helper()
	var out struct {
		Payments []kassaPayment `json:"payments"`
	}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id+"?expand[]=payments",
		map[string]string{"x-api-key": k.merchantKey}, nil, &out), 200)
	return out.Payments
}

// transfersTo returns the transactions of every USDT Transfer to addr on the
// dev chain at url, and their sum.
func transfersTo(t *testing.T, url, addr string) ([]string, *big.Int) {
	t.Helper()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logs, err := c.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: big.NewInt(0),
		Addresses: []common.Address{common.HexToAddress(devchain.USDTAddress)},
		Topics: [][]common.Hash{{crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))}, nil,
			{common.BytesToHash(common.HexToAddress(addr).Bytes())}}})
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	sum := new(big.Int)
	for _, l := range logs {
		hashes = append(hashes, l.TxHash.Hex())
		sum.Add(sum, new(big.Int).SetBytes(l.Data))
	}
	return hashes, sum
}

// listEvents reads every event of the key's merchant and environment, newest first.
func listEvents(t *testing.T, k *instance, apiKey string) []string {
	t.Helper()
	var ids []string
	for after := ""; ; {
		var page struct {
			Data struct {
				Data    []struct{ ID string } `json:"data"`
				HasMore bool                  `json:"has_more"`
			} `json:"data"`
		}
		q := "?limit=100"
		if after != "" {
			q += "&starting_after=" + after
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/events"+q, map[string]string{"x-api-key": apiKey}, nil, &page), 200)
		for _, e := range page.Data.Data {
			ids = append(ids, e.ID)
		}
		if !page.Data.HasMore || len(page.Data.Data) == 0 {
			return ids
		}
		after = ids[len(ids)-1]
	}
}

// slowReceiver is a webhook endpoint on loopback that verifies every request with
// the Standard Webhooks library, records its webhook-id, body and arrival, and
// answers 200 after 100 to 300 ms, so deliveries are in flight most of the time.
type slowReceiver struct {
	srv      *httptest.Server
	inFlight atomic.Int32

	mu     sync.Mutex
	wh     *standardwebhooks.Webhook
	killed time.Time            // when the instance was killed
	got    map[string][]arrival // webhook-id → every request with it
	n      int
}

// arrival is one request a receiver got.
type arrival struct {
	body []byte
	at   time.Time
}

func newSlowReceiver(t *testing.T) *slowReceiver {
	t.Helper()
	r := &slowReceiver{got: map[string][]arrival{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.inFlight.Add(1)
		defer r.inFlight.Add(-1)
		body, _ := io.ReadAll(req.Body)
		at, id := time.Now(), req.Header.Get("webhook-id")
		r.mu.Lock()
		err := r.wh.Verify(body, req.Header)
		if err == nil {
			r.got[id] = append(r.got[id], arrival{body, at})
			r.n++
		}
		r.mu.Unlock()
		if err != nil {
			t.Errorf("webhook %s does not verify: %v", id, err)
			w.WriteHeader(400)
			return
		}
		time.Sleep(time.Duration(100+rand.IntN(200)) * time.Millisecond)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// verifyWith sets the endpoint's signing secret; call it before any event.
func (r *slowReceiver) verifyWith(t *testing.T, secret string) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.wh = wh
	r.mu.Unlock()
}

func (r *slowReceiver) markKill(at time.Time) {
	r.mu.Lock()
	r.killed = at
	r.mu.Unlock()
}

// total is how many requests arrived.
func (r *slowReceiver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// check fails the test unless every event arrived, nothing else arrived, and an
// event arrived twice only with the same body, first before the kill, for at most
// limit events; it returns how many arrived twice.
func (r *slowReceiver) check(t *testing.T, events []string, limit int) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range events {
		if len(r.got[id]) == 0 {
			t.Errorf("event %s was never delivered", id)
		}
	}
	if len(r.got) != len(events) {
		t.Errorf("%d webhook-ids arrived for %d events", len(r.got), len(events))
	}
	dups := 0
	for id, as := range r.got {
		if len(as) == 1 {
			continue
		}
		dups++
		if len(as) > 2 || !as[0].at.Before(r.killed) || !bytes.Equal(as[0].body, as[1].body) {
			t.Errorf("webhook %s arrived %d times (first %v before the kill), same body: %v",
				id, len(as), r.killed.Sub(as[0].at), bytes.Equal(as[0].body, as[len(as)-1].body))
		}
	}
	if dups > limit {
		t.Errorf("%d webhooks arrived twice; the killed instance had at most %d in flight", dups, limit)
	}
	return dups
}
