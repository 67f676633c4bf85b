package httpx

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// TestStoreOnlyReplayHeaders: a StoreOnly run that fails (here a 503, as when the
// store is saturated) while the store holds a record under its key answers what
// the record says, and the failed run's headers (Retry-After) stay out of it.
func TestStoreOnlyReplayHeaders(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, storetest.SQLiteConfig(t))
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "i@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	core := NewCore(CoreConfig{Secret: []byte("0123456789abcdef0123456789abcdef"), Idempotency: db})
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet}
	const path, body, saved = "/api/v1/invoices", `{"amount_usd":"1"}`, `{"id":"first"}`
	runs := 0
	h := core.Idempotent(IdempotencyOptions{SavesWithChange: true, StoreOnly: true},
		func(w http.ResponseWriter, r *http.Request, _ *Claim) error {
			runs++
			w.Header().Set("X-Run", "failed")
			return kassa.ErrUnavailable
		})
	send := func(t *testing.T, key, reqBody string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest("POST", path, strings.NewReader(reqBody))
		r.Header.Set("Idempotency-Key", key)
		r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
		w := httptest.NewRecorder()
		if err := h(w, r); err != nil {
			core.WriteError(w, r, err)
		}
		return w
	}
	held := func(t *testing.T, key string) {
		t.Helper()
		scope := kassa.IdempotencyScope{MerchantID: p.MerchantID, Environment: p.Environment, Route: "POST " + path, Key: key}
		sealed := core.sealer.Seal(scope, []byte(saved))
		if err := db.SaveIdempotentResponse(ctx, scope, fingerprint("POST", path, []byte(body)), 201, sealed); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, body string
		held       bool
		status     int
		want       string // in the body
		replayed   string // Idempotent-Replayed
		runHeaders bool   // X-Run and Retry-After of the failed run
	}{
		{"replay", body, true, 201, saved, "true", false},
		{"reused", `{"amount_usd":"2"}`, true, 409, "idempotency_key_reused", "", false},
		{"nothing held", body, false, 503, "service_unavailable", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := kassa.NewUUID()
			if tt.held {
				held(t, key)
			}
			before := runs
			w := send(t, key, tt.body)
			if runs != before+1 {
				t.Fatalf("the handler ran %d times, want once", runs-before)
			}
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.want) {
				t.Fatalf("status %d, body %s; want %d with %s", w.Code, w.Body, tt.status, tt.want)
			}
			if got := w.Header().Get("Idempotent-Replayed"); got != tt.replayed {
				t.Errorf("Idempotent-Replayed %q, want %q", got, tt.replayed)
			}
			got := w.Header().Get("X-Run") != "" || w.Header().Get("Retry-After") != ""
			if got != tt.runHeaders {
				t.Errorf("the failed run's headers: %v, want %v (%v)", got, tt.runHeaders, w.Header())
			}
		})
	}
}
