package webhook

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDeliveryToLoopback runs the worker on the real store (both engines) against
// an endpoint on a loopback server, which the store accepted because the operator
// allowed private targets there. A worker without the flag refuses to connect: the
// attempt is failed in the log with the guard's error and the delivery is retried
// on the schedule. A worker with the flag delivers, and the log keeps the status
// but not the body.
func TestDeliveryToLoopback(t *testing.T) {
	const secretBody = "internal-service-banner: admin token 1234"
	var hits atomic.Int32
	srv, _ := recordingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(secretBody))
	})
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		hits.Store(0)
		ctx := context.Background()
		clock := storetest.NewClock(time.Now().UTC().Truncate(time.Second))
		cfg.Now = clock.Now
		db := storetest.Open(t, cfg)
		m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Loop", Email: "loop@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
		ep, err := endpoints.Over(db, allowPrivate).CreateWebhookEndpoint(ctx, p, kassa.WebhookEndpointInput{URL: &srv.URL, EnabledEvents: []string{"invoice.created"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 5000}, nil); err != nil {
			t.Fatal(err)
		}
		log := func(t *testing.T) *kassa.WebhookDelivery {
			t.Helper()
			ds, _, err := db.WebhookDeliveries(ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID, Limit: 10})
			if err != nil || len(ds) != 1 {
				t.Fatalf("deliveries %v, %v; want one", ds, err)
			}
			return ds[0]
		}

		refusing := &Worker{Queue: db, Now: clock.Now}
		if n, err := refusing.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("RunOnce without the flag = %d, %v; want 1 attempt", n, err)
		}
		d := log(t)
		if hits.Load() != 0 {
			t.Fatal("the loopback server got a request without the flag")
		}
		if d.Status != kassa.DeliveryPending || d.NextAttemptAt == nil || len(d.Log) != 1 {
			t.Fatalf("delivery %+v: want pending with a retry after one attempt", d)
		}
		if a := d.Log[0]; a.Succeeded || a.StatusCode != 0 || a.ResponseExcerpt != "" ||
			!strings.Contains(a.Error, "address is not allowed (loopback)") || strings.Contains(a.Error, "127.0.0.1") {
			t.Fatalf("refused attempt %+v: want failed with the guard's error, not naming the address", a)
		}

		clock.Set(*d.NextAttemptAt)
		allowed := &Worker{Queue: db, Now: clock.Now, Targets: allowPrivate}
		if n, err := allowed.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("RunOnce with the flag = %d, %v; want 1 attempt", n, err)
		}
		d = log(t)
		if hits.Load() != 1 || d.Status != kassa.DeliverySucceeded || len(d.Log) != 2 {
			t.Fatalf("%d requests, delivery %+v: want one succeeded second attempt", hits.Load(), d)
		}
		if a := d.Log[1]; !a.Succeeded || a.StatusCode != http.StatusAccepted || a.Error != "" ||
			a.ResponseExcerpt != kassa.WebhookBodyNotKept {
			t.Fatalf("delivered attempt %+v: want 202 with the body not kept", a)
		}
		raw, err := d.MarshalJSON()
		if err != nil || strings.Contains(string(raw), "admin token") {
			t.Fatalf("delivery log %s (%v) shows the loopback server's body", raw, err)
		}
	})
}

// TestMainnetDeliveryResolvingToLoopback runs the worker on the real store (both
// engines) with private targets allowed, against one endpoint per environment at
// the same name, which the test's DNS resolves to a loopback TLS server (the name
// is one the server's certificate holds; a name passes create, being checked on
// every dial). The devnet delivery arrives; the mainnet one is refused at the dial,
// before any packet, and stays pending with the guard's error: the flag is for
// devnet only.
func TestMainnetDeliveryResolvingToLoopback(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	dns := newFakeDNS(t, "127.0.0.1")
	url := "https://example.com" + srv.URL[strings.LastIndex(srv.URL, ":"):] + "/hook"
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		hits.Store(0)
		ctx := context.Background()
		clock := storetest.NewClock(time.Now().UTC().Truncate(time.Second))
		cfg.Now = clock.Now
		db := storetest.Open(t, cfg)
		m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Two", Email: "two@example.com", Password: "correct horse", MainnetEnabled: true})
		if err != nil {
			t.Fatal(err)
		}
		endpointIDs := map[kassa.Environment]string{}
		for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
			p := kassa.Principal{MerchantID: m.ID, Environment: env, Scope: kassa.ScopeMerchant, KeyID: "k"}
			ep, err := endpoints.Over(db, allowPrivate).CreateWebhookEndpoint(ctx, p, kassa.WebhookEndpointInput{URL: &url, EnabledEvents: []string{"invoice.created"}})
			if err != nil {
				t.Fatalf("%s endpoint at a name: %v", env, err)
			}
			endpointIDs[env] = ep.ID
			if _, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 5000}, nil); err != nil {
				t.Fatal(err)
			}
		}
		w := &Worker{Queue: db, Now: clock.Now, Targets: allowPrivate, dial: clientOptions{resolver: dns.resolver(), rootCAs: roots}}
		t.Cleanup(func() {
			for _, c := range w.made {
				c.CloseIdleConnections()
			}
		})
		if n, err := w.RunOnce(ctx); n != 2 || err != nil {
			t.Fatalf("RunOnce = %d, %v; want 2 attempts", n, err)
		}
		if hits.Load() != 1 {
			t.Fatalf("%d requests reached the loopback server, want 1 (devnet's)", hits.Load())
		}
		for env, id := range endpointIDs {
			p := kassa.Principal{MerchantID: m.ID, Environment: env, Scope: kassa.ScopeMerchant, KeyID: "k"}
			ds, _, err := db.WebhookDeliveries(ctx, p, kassa.DeliveryFilter{EndpointID: id, Limit: 10})
			if err != nil || len(ds) != 1 || len(ds[0].Log) != 1 {
				t.Fatalf("%s deliveries %v, %v; want one with one attempt", env, ds, err)
			}
			d, a := ds[0], ds[0].Log[0]
			switch env {
			case kassa.Devnet:
				if d.Status != kassa.DeliverySucceeded || !a.Succeeded || a.StatusCode != http.StatusNoContent {
					t.Fatalf("devnet delivery %+v, attempt %+v: want delivered", d, a)
				}
			case kassa.Mainnet:
				if d.Status != kassa.DeliveryPending || a.Succeeded || a.StatusCode != 0 ||
					!strings.Contains(a.Error, "address is not allowed (loopback)") || strings.Contains(a.Error, "127.0.0.1") {
					t.Fatalf("mainnet delivery %+v, attempt %+v: want refused at the dial, pending", d, a)
				}
			}
		}
	})
}
