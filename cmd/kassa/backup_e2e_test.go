package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// acked is an invoice the server acknowledged (201), and when; paidAt is when
// its devnet payment was acknowledged, zero when none was.
type acked struct {
	id             string
	at, paidAt     time.Time
	createdPayment bool
}

// loadInvoices creates invoices through the API with four clients until stop
// closes, paying every other one through the devnet payments endpoint; it
// returns what the server acknowledged.
func loadInvoices(k *instance, stop <-chan struct{}) []acked {
	var (
		mu  sync.Mutex
		out []acked
		wg  sync.WaitGroup
	)
	post := func(path string, body any, headers map[string]string) (int, []byte) {
		var rd *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequest("POST", k.url+path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("x-api-key", k.merchantKey)
		for h, v := range headers {
			req.Header.Set(h, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.Bytes()
	}
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				status, body := post("/api/v1/invoices", map[string]any{"amount_usd": 1 + w, "description": "backup load"},
					map[string]string{"Idempotency-Key": kassa.NewUUID()})
				var inv struct {
					ID string `json:"invoice_id"`
				}
				if status != http.StatusCreated || json.Unmarshal(body, &inv) != nil {
					continue
				}
				a := acked{id: inv.ID, at: time.Now()}
				if i%2 == 0 {
					if status, _ := post("/api/v1/devnet/invoices/"+inv.ID+"/payments", nil, nil); status == http.StatusCreated {
						a.paidAt, a.createdPayment = time.Now(), true
					}
				}
				mu.Lock()
				out = append(out, a)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

// TestBackupUnderLoadAndRestore: `kassa backup` taken while four clients create
// and pay invoices, restored with `kassa restore` into a new data dir, holds
// every invoice, payment and event acknowledged before the backup began.
func TestBackupUnderLoadAndRestore(t *testing.T) {
	cfg := storetest.SQLiteConfig(t)
	k := startKassa(t, cfg)
	stop := make(chan struct{})
	done := make(chan []acked)
	go func() { done <- loadInvoices(k, stop) }()
	time.Sleep(1500 * time.Millisecond)

	file := filepath.Join(t.TempDir(), "kassa-backup.tar.gz")
	began := time.Now()
	if out, err := exec.Command(kassaBin, "backup", "--data-dir", cfg.DataDir, "--out", file).CombinedOutput(); err != nil {
		t.Fatalf("kassa backup: %v\n%s", err, out)
	}
	time.Sleep(500 * time.Millisecond) // the load goes on after the backup
	close(stop)
	all := <-done
	stopGracefully(t, k)
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", st, err)
	}

	dir := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command(kassaBin, "restore", file, "--data-dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("kassa restore: %v\n%s", err, out)
	}
	if out, err := exec.Command(kassaBin, "restore", file, "--data-dir", dir).CombinedOutput(); err == nil {
		t.Fatalf("a restore over a data dir with a database was not refused:\n%s", out)
	}
	// The secrets key is not in the backup: the operator brings it back from where it is kept apart.
	kek, err := os.ReadFile(filepath.Join(cfg.DataDir, "secrets.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secrets.key"), kek, 0o600); err != nil {
		t.Fatal(err)
	}
	k2 := startKassa(t, store.Config{DataDir: dir, PasswordCost: cfg.PasswordCost})
	created, paid := eventInvoices(t, k2, "invoice.created"), eventInvoices(t, k2, "invoice.paid")
	var before, beforePaid, after int
	for _, a := range all {
		if !a.at.Before(began) {
			if created[a.id] {
				after++
			}
			continue
		}
		before++
		var inv struct{ Status string }
		wantStatus(t, call(t, "GET", k2.url+"/api/v1/invoices/"+a.id, map[string]string{"x-api-key": k2.merchantKey}, nil, &inv), 200)
		if !created[a.id] {
			t.Errorf("invoice %s, acknowledged before the backup, has no invoice.created event after the restore", a.id)
		}
		if a.createdPayment && a.paidAt.Before(began) {
			beforePaid++
			if inv.Status != "paid" || !paid[a.id] {
				t.Errorf("invoice %s, paid before the backup, is %s after the restore (invoice.paid event: %v)", a.id, inv.Status, paid[a.id])
			}
		}
	}
	if before < 20 || beforePaid < 5 {
		t.Fatalf("only %d invoices (%d paid) were acknowledged before the backup: the load did not run", before, beforePaid)
	}
	t.Logf("acknowledged before the backup: %d invoices (%d paid), all restored; after it began: %d more acknowledged, %d of them in the backup",
		before, beforePaid, len(all)-before, after)
}

// eventInvoices pages through the events of type typ and returns the invoice ids
// they name.
func eventInvoices(t *testing.T, k *instance, typ string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	after := ""
	for {
		var page struct {
			Data struct {
				Data []struct {
					ID   string `json:"id"`
					Data struct {
						Object struct {
							ID string `json:"id"`
						} `json:"object"`
					} `json:"data"`
				} `json:"data"`
				HasMore bool `json:"has_more"`
			} `json:"data"`
		}
		q := url.Values{"type": {typ}, "limit": {"100"}}
		if after != "" {
			q.Set("starting_after", after)
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/events?"+q.Encode(), map[string]string{"x-api-key": k.merchantKey}, nil, &page), 200)
		for _, e := range page.Data.Data {
			ids[e.Data.Object.ID] = true
			after = e.ID
		}
		if !page.Data.HasMore || len(page.Data.Data) == 0 {
			return ids
		}
	}
}
