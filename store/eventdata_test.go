package store_test

import (
	"encoding/json"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/internal/deflate"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// eventsRead reads every event of the fixture's store the ways the API, the
// streams and the webhook worker do, and returns each reader's data by event id.
func (f *fixture) eventsRead(t *testing.T, cfg store.Config) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{"Events": {}, "Event": {}, "FeedAfter": {}, "ClaimWebhookJobs": {}}
	for _, e := range f.merchantEvents(t, f.m) {
		out["Events"][e.ID] = string(e.Data)
		one, err := f.db.Event(f.ctx, f.m.ID, kassa.Devnet, kassa.ScopeMerchant, e.ID)
		must(t, err)
		out["Event"][one.ID] = string(one.Data)
	}
	for _, e := range f.feedAll(t, kassa.FeedPos{}, rawCount(t, cfg, "SELECT COUNT(*) FROM events")) {
		out["FeedAfter"][e.ID] = string(e.Data)
	}
	jobs, err := f.db.ClaimWebhookJobs(f.ctx, 100, 0)
	must(t, err)
	for _, j := range jobs {
		var p struct {
			ID   string
			Data struct{ Object json.RawMessage }
		}
		must(t, json.Unmarshal(j.Payload, &p))
		out["ClaimWebhookJobs"][p.ID] = string(p.Data.Object)
	}
	return out
}

// TestEventDataDeflated: events' data is stored deflated (data empty, data_z the
// frame) and every reader gets the JSON back byte for byte; rows written before
// migration 0017 (JSON in data, data_z NULL) read the same; a corrupt frame is an
// error of the readers, not a panic nor other bytes.
func TestEventDataDeflated(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		_, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/hook"), EnabledEvents: []string{"*"}})
		must(t, err)
		// CreateInvoice deflates before its transaction, CancelInvoice inside it.
		inv := f.invoice(t, f.m, 1000, func(c *kassa.InvoiceCreate) { c.Description = ptr("Tea & <cake> ☕") })
		canceled, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, inv.ID)
		must(t, err)
		want, created := map[string]string{}, ""
		for _, e := range f.merchantEvents(t, f.m) {
			want[e.ID] = apiJSON(t, canceled)
			if e.Type == kassa.EventInvoiceCreated {
				want[e.ID], created = apiJSON(t, inv), e.ID
			}
		}
		if len(want) != 3 {
			t.Fatalf("%d events, want 3", len(want))
		}
		raw := storetest.RawDB(t, cfg)
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM events WHERE data = '' AND data_z IS NOT NULL"); n != 3 {
			t.Fatalf("%d of 3 events stored deflated", n)
		}
		var zMax int
		must(t, raw.QueryRowContext(f.ctx, "SELECT MAX(LENGTH(data_z)) FROM events").Scan(&zMax))
		if zMax == 0 || zMax > len(want[created])/3 {
			t.Fatalf("a %d-byte event stored in %d bytes", len(want[created]), zMax)
		}

		tests := []struct {
			name    string
			data    string // the invoice.created row's data and data_z; "as written" keeps them
			z       any
			corrupt bool
		}{
			{"as written", "", nil, false},
			{"written before 0017", want[created], nil, false},
			{"frame corrupt", "", []byte{1, 200, 7, 0xff, 0xff, 0xff}, true},
			{"frame of an unknown format", "", append([]byte{9}, deflate.Deflate(nil, []byte(want[created]))[1:]...), true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.name != "as written" {
					if _, err := raw.ExecContext(f.ctx, "UPDATE events SET data = $1, data_z = $2 WHERE id = $3",
						tt.data, tt.z, created); err != nil {
						t.Fatal(err)
					}
				}
				if tt.corrupt {
					if _, err := f.db.Event(f.ctx, f.m.ID, kassa.Devnet, kassa.ScopeMerchant, created); err == nil {
						t.Error("Event read a corrupt frame")
					}
					if _, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet,
						Scope: kassa.ScopeMerchant, Limit: 10}); err == nil {
						t.Error("Events read a corrupt frame")
					}
					if _, err := f.db.FeedAfter(f.ctx, kassa.FeedPos{}, 10); err == nil {
						t.Error("FeedAfter read a corrupt frame")
					}
					if _, err := f.db.ClaimWebhookJobs(f.ctx, 100, 0); err == nil {
						t.Error("ClaimWebhookJobs read a corrupt frame")
					}
					return
				}
				for reader, got := range f.eventsRead(t, cfg) {
					for id, data := range want {
						if got[id] != data {
							t.Errorf("%s: event %s data\n got %s\nwant %s", reader, id, got[id], data)
						}
					}
				}
			})
		}
	})
}
