package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestInstancesShareOnePostgres starts three kassa serve processes on one
// PostgreSQL schema, each with its own data dir and the same secret, master keys
// and secrets key, as behind a proxy. Invoices created through A reach a WebSocket
// stream on B (the latency from A's 201 to B's frame is logged: the figure in
// docs/performance.md), and a key revoked through A stops working on B and C (the
// time is logged; only the failure is asserted).
//
//	KASSA_TEST_POSTGRES_DSN=postgres://... go test ./cmd/kassa -run TestInstancesShareOnePostgres -v
func TestInstancesShareOnePostgres(t *testing.T) {
	a, b, c, key, jwt := threeInstances(t, "KASSA_CREATE_RATE_LIMIT=1000", "KASSA_CREATE_RATE_BURST=1000")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(b.url, "http")+"/ws/merchant/events",
		&websocket.DialOptions{HTTPHeader: http.Header{"X-Api-Key": {key.APIKey}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	frames := make(chan frameAt, 16)
	go func() {
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				close(frames)
				return
			}
			var ev struct {
				Type string
				Data struct {
					Object struct {
						ID string `json:"id"`
					} `json:"object"`
				} `json:"data"`
			}
			if json.Unmarshal(msg, &ev) == nil && ev.Type == "invoice.created" {
				frames <- frameAt{ev.Data.Object.ID, time.Now()}
			}
		}
	}()

	const n = 200
	latencies := make([]time.Duration, 0, n)
	for range n {
		var inv struct {
			ID string `json:"invoice_id"`
		}
		resp := call(t, "POST", a.url+"/api/v1/invoices",
			map[string]string{"x-api-key": key.APIKey, "Idempotency-Key": kassa.NewUUID()}, map[string]any{"amount_usd": 5}, &inv)
		created := time.Now()
		wantStatus(t, resp, 201)
		for f := range frames {
			if f.id == inv.ID {
				latencies = append(latencies, max(0, f.at.Sub(created)))
				break
			}
		}
		if ctx.Err() != nil || len(latencies) == 0 {
			t.Fatalf("the stream on B ended before invoice %s arrived", inv.ID)
		}
	}
	slices.Sort(latencies)
	t.Logf("A's 201 to B's frame over %d invoices: p50 %v, p99 %v, max %v",
		n, latencies[n/2], latencies[n*99/100], latencies[n-1])

	for _, in := range []*instance{b, c} { // both have the key cached now
		wantStatus(t, call(t, "GET", in.url+"/api/v1/invoices?limit=1", map[string]string{"x-api-key": key.APIKey}, nil, nil), 200)
	}
	wantStatus(t, call(t, "POST", a.url+"/api/v1/api-keys/"+key.ID+"/revoke", jwt, map[string]any{}, nil), 200)
	revoked := time.Now()
	for name, in := range map[string]*instance{"B": b, "C": c} {
		for {
			resp := call(t, "GET", in.url+"/api/v1/invoices?limit=1", map[string]string{"x-api-key": key.APIKey}, nil, nil)
			if resp.StatusCode == 401 {
				t.Logf("the key revoked through A failed on %s after %v", name, time.Since(revoked))
				break
			}
			if time.Since(revoked) > 30*time.Second {
				t.Fatalf("the key revoked through A still works on %s", name)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// sharedKey is an API key made through the API, and its id.
type sharedKey struct {
	ID     string `json:"key_id"`
	APIKey string `json:"api_key"`
}

// threeInstances starts three kassa serve processes on one fresh PostgreSQL
// schema (startCluster, extra environment variables added) and returns the
// instances, the merchant key and A's login header.
func threeInstances(t *testing.T, extra ...string) (a, b, c *instance, key sharedKey, jwt map[string]string) {
	t.Helper()
	cl := startCluster(t, extra)
	return cl.a, cl.b, cl.c, cl.key, cl.jwt
}

// cluster is three kassa serve processes sharing one PostgreSQL schema, as behind
// a proxy, with one merchant and a merchant key made through A.
type cluster struct {
	a, b, c    *instance
	key        sharedKey
	jwt        map[string]string            // A's login header
	db         store.Config                 // the shared database
	masterKeys map[kassa.Environment]string // every instance's master keys (xprv)
}

// startCluster starts three kassa serve processes on one fresh PostgreSQL schema
// (own data dirs; the same secret, master keys and secrets key; env added to their
// environment, args to their command lines), a merchant, and a merchant key made
// through A.
func startCluster(t *testing.T, env []string, args ...string) *cluster {
	t.Helper()
	cl := &cluster{db: storetest.PostgresConfig(t)}
	cl.masterKeys = clearMasterKeys(t, t.TempDir())
	_, kek := sealed.NewKey()
	env = append([]string{"KASSA_SECRETS_KEY=" + kek, "KASSA_SECRET=" + strings.Repeat("s", 40),
		"KASSA_DEVNET_MASTER_KEY=" + cl.masterKeys[kassa.Devnet], "KASSA_MAINNET_MASTER_KEY=" + cl.masterKeys[kassa.Mainnet]}, env...)
	serve := func() *instance {
		t.Helper()
		return startServe(t, env, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(),
			"--database-url", cl.db.DatabaseURL}, args...)...)
	}
	cl.a = serve()
	runKassa(t, "merchant", "create", "--name", "Shared", "--email", "ops@shared.test", "--password", "correct horse",
		"--data-dir", t.TempDir(), "--database-url", cl.db.DatabaseURL)
	cl.b, cl.c = serve(), serve()
	var login struct{ Token string }
	wantStatus(t, call(t, "POST", cl.a.url+"/api/v1/auth/login", nil,
		map[string]string{"email": "ops@shared.test", "password": "correct horse"}, &login), 200)
	cl.jwt = map[string]string{"Authorization": "Bearer " + login.Token}
	wantStatus(t, call(t, "POST", cl.a.url+"/api/v1/api-keys", cl.jwt,
		map[string]any{"name": "shared", "scope": "merchant", "environment": "devnet"}, &cl.key), 201)
	return cl
}

// TestRateLimitAcrossThreeInstances: one key's requests spread over three
// serve processes on one PostgreSQL get one budget (burst + rate × time, within
// 10 %), not three.
func TestRateLimitAcrossThreeInstances(t *testing.T) {
	const rate, burst = 10, 20
	a, b, c, key, _ := threeInstances(t, "KASSA_RATE_LIMIT=10", "KASSA_RATE_BURST=20")
	instances := []*instance{a, b, c}
	admitted, refused := 0, 0
	start := time.Now()
	for i := 0; time.Since(start) < 2*time.Second; i++ {
		req, _ := http.NewRequest("GET", instances[i%3].url+"/api/v1/invoices?limit=1", nil)
		req.Header.Set("x-api-key", key.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			admitted++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	elapsed := time.Since(start).Seconds()
	budget := burst + rate*elapsed
	t.Logf("over %.2f s across three instances: %d admitted, %d refused; one key's budget is %.1f", elapsed, admitted, refused, budget)
	if float64(admitted) > budget*1.1+1 || admitted < burst || refused == 0 {
		t.Fatalf("%d admitted across three instances, want one budget of about %.1f (three would be %.1f)", admitted, budget, 3*budget)
	}
}

// frameAt is an invoice.created frame and when it arrived.
type frameAt struct {
	id string
	at time.Time
}
