package api_test

import (
	"sync"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestIdempotencyReplay(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		key := newIdemKey()
		first := m.postInvoice(`{"amount_usd": 10, "description": "a"}`, key)
		expectStatus(t, first, 201)
		if first.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("first response marked as replayed")
		}
		// Same parameters, other whitespace and key order: a replay.
		again := m.postInvoice(`{ "description" : "a",   "amount_usd": 10 }`, key)
		expectStatus(t, again, 201)
		if again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay lacks Idempotent-Replayed: true")
		}
		if string(again.body) != string(first.body) {
			t.Errorf("replayed body differs:\n%s\n%s", first.body, again.body)
		}
		if got := ids(t, m.get("/api/v1/invoices")); len(got) != 1 {
			t.Errorf("%d invoices after a replay", len(got))
		}
		// Different parameters with the same key.
		r := m.postInvoice(`{"amount_usd": 11, "description": "a"}`, key)
		expectError(t, r, 409, "idempotency_error", "idempotency_key_reused", "Idempotency-Key")
		// A used key with a body that fails validation: still the key's conflict, as
		// when the key was read before the handler ran (the create reads it after).
		r = m.postInvoice(`{"amount_usd": 0.001}`, key)
		expectError(t, r, 409, "idempotency_error", "idempotency_key_reused", "Idempotency-Key")
		// The same key on another merchant is another key.
		other := e.newMerchant(false)
		expectStatus(t, other.postInvoice(`{"amount_usd": 10, "description": "a"}`, key), 201)
		// A dashboard token acts in the same scope as devnet keys of the merchant.
		h := m.jwt()
		h["Idempotency-Key"] = key
		r = e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 10, "description": "a"}`, headers: h})
		expectStatus(t, r, 201)
		if r.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("JWT request with the same key was not a replay")
		}
	})
}

func TestIdempotencyValidationNotSaved(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		key := newIdemKey()
		r := m.postInvoice(`{"amount_usd": 0.001}`, key)
		expectError(t, r, 400, "invalid_request_error", "amount_out_of_range", "amount_usd")
		r = m.postInvoice(`{"amount_usd": 5}`, key) // fixed body, same key
		expectStatus(t, r, 201)
		if r.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("fixed request replayed")
		}
		// Auth failures are not saved either.
		h := withKey("kassa_devnet_merchant_" + "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
		h["Idempotency-Key"] = key
		r = e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 5}`, headers: h})
		expectStatus(t, r, 401)
		r = m.postInvoice(`{"amount_usd": 5}`, key)
		if r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay after a 401: %d %s", r.status, r.body)
		}
	})
}

// TestIdempotencyConcurrent sends one key 20 times at once, spread over two API
// instances on one store: each holds keys in its own process, so across the two
// only the store's unique key stops a second invoice.
func TestIdempotencyConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		other := *m
		other.e = newEnvOn(t, e.db, nil) // a second instance on the same store
		key := newIdemKey()
		const n = 20
		var (
			wg        sync.WaitGroup
			responses = make([]*response, n)
			start     = make(chan struct{})
		)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				via := m
				if i%2 == 1 {
					via = &other
				}
				responses[i] = via.postInvoice(`{"amount_usd": 7, "customer_id": "race"}`, key)
			}()
		}
		close(start)
		wg.Wait()

		list := ids(t, m.get("/api/v1/invoices?customer_id=race"))
		if len(list) != 1 {
			t.Fatalf("%d invoices for one idempotency key", len(list))
		}
		created, replays, inUse := 0, 0, 0
		for _, r := range responses {
			switch {
			case r.status == 201:
				if got := r.obj(t)["invoice_id"]; got != list[0] {
					t.Errorf("response names invoice %v, want %s", got, list[0])
				}
				if r.header.Get("Idempotent-Replayed") == "true" {
					replays++
				} else {
					created++
				}
			case r.status == 409 && r.errorDetail(t)["code"] == "idempotency_key_in_use":
				inUse++
			default:
				t.Errorf("unexpected response %d %s", r.status, r.body)
			}
		}
		if created != 1 {
			t.Errorf("%d original responses, want 1 (replays %d, in use %d)", created, replays, inUse)
		}
		t.Logf("created %d, replayed %d, in use %d", created, replays, inUse)
	})
}
