package store_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// jsonOf renders v as JSON, failing the test on error.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(wireOf(v))
	must(t, err)
	return string(b)
}

func TestInvoiceCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		_, err := f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{
			CompanyName: ptr("Acme Ltd"), DefaultReturnURL: ptr("https://acme.example/back")})
		must(t, err)
		now := t0.Truncate(time.Microsecond)
		addr := "0x52908400098527886E0F7030069857D2E4169EE7"
		questions := []kassa.Question{{ID: "q1", Question: "Your email?", Type: "email", Validation: kassa.QuestionValidation{Required: true}}}
		meta := []byte(`{"b": 1,  "a":[1, 2], "u":"\u00e9"}`)

		tests := []struct {
			name  string
			c     kassa.InvoiceCreate
			check func(t *testing.T, inv *kassa.Invoice)
		}{
			{"defaults from merchant", kassa.InvoiceCreate{Amount: 12_345}, func(t *testing.T, inv *kassa.Invoice) {
				if inv.InvoiceTitle != "Acme Ltd" || inv.InvoiceFooter != "Acme Ltd" || inv.PaymentReturnURL == nil ||
					*inv.PaymentReturnURL != "https://acme.example/back" || !inv.PaymentReturnURLEnabled ||
					!inv.ExpiresAt.Equal(now.Add(kassa.DefaultInvoiceTTL)) || string(inv.Metadata) != "{}" ||
					inv.Questions != nil || inv.Description != nil || inv.CustomerID != nil || inv.ReceiverOverrideEnabled {
					t.Fatalf("defaults not applied: %s", jsonOf(t, inv))
				}
			}},
			{"every field", kassa.InvoiceCreate{
				Amount: 1_000_000_000, Description: ptr("Two widgets"), CustomerID: ptr("cus_1"),
				CustomerEmail: ptr("buyer@example.com"), Metadata: meta, ExpiresIn: ptr(90 * time.Minute),
				ReceiverOverrideEnable: true, ReceiverOverrideAddress: ptr(addr),
				InvoiceTitle: ptr("Title"), InvoiceFooter: ptr("Footer"),
				PaymentReturnURL: ptr("https://shop.example/done"), PaymentReturnURLEnabled: ptr(false),
				Questions: questions, QuestionsBytes: 80, CommerceOrderID: ptr("ord_1"),
			}, func(t *testing.T, inv *kassa.Invoice) {
				if *inv.Description != "Two widgets" || *inv.CustomerID != "cus_1" || *inv.CustomerEmail != "buyer@example.com" ||
					!bytes.Equal(inv.Metadata, meta) || !inv.ExpiresAt.Equal(now.Add(90*time.Minute)) ||
					!inv.ReceiverOverrideEnabled || *inv.ReceiverOverrideAddress != addr ||
					inv.InvoiceTitle != "Title" || inv.InvoiceFooter != "Footer" ||
					*inv.PaymentReturnURL != "https://shop.example/done" || inv.PaymentReturnURLEnabled ||
					len(inv.Questions) != 1 || inv.Questions[0] != questions[0] || *inv.CommerceOrderID != "ord_1" {
					t.Fatalf("fields not kept: %s", jsonOf(t, inv))
				}
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				inv, token, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), tt.c, nil)
				must(t, err)
				if !kassa.ValidUUID(inv.ID) || inv.ID[14] != '7' || len(token) < 40 || inv.MerchantID != f.m.ID || inv.Environment != kassa.Devnet ||
					inv.Status != kassa.StatusUnpaid || inv.Type != "standard" || inv.Currency != "usd" ||
					inv.Amount != tt.c.Amount || inv.AmountPaid != 0 || !inv.CreatedAt.Equal(now) {
					t.Fatalf("created %s token %q", jsonOf(t, inv), token)
				}
				tt.check(t, inv)
				got, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
				must(t, err)
				tt.check(t, got)
				if a, b := jsonOf(t, got), jsonOf(t, inv); a != b {
					t.Fatalf("read back differs:\n got %s\nwant %s", a, b)
				}
			})
		}
		_, _, err = invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 5}, nil)
		wantErr(t, err, kassa.KindInvalid, "amount_out_of_range")
	})
}

func TestInvoiceCreatedEventInSameTransaction(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 2500, nil)
		events, err := f.recentEvents(10)
		must(t, err)
		if len(events) != 1 {
			t.Fatalf("%d events, want 1", len(events))
		}
		e := events[0]
		if e.Type != kassa.EventInvoiceCreated || e.MerchantID != f.m.ID || e.Environment != kassa.Devnet ||
			!e.Created.Equal(inv.CreatedAt) || len(e.ID) < 10 || e.ID[:4] != "evt_" {
			t.Fatalf("event = %+v", e)
		}
		if string(e.Data) != jsonOf(t, inv) {
			t.Fatalf("event data %s, want %s", e.Data, jsonOf(t, inv))
		}
		// A refused create writes neither invoice nor event.
		_, _, err = invoicing.Over(f.db).CreateInvoice(f.ctx, kassa.Principal{MerchantID: 987654, Environment: kassa.Devnet}, kassa.InvoiceCreate{Amount: 100}, nil)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		if events, _ := f.recentEvents(10); len(events) != 1 {
			t.Fatalf("%d events after refused create, want 1", len(events))
		}
	})
}

func TestInvoiceRetrieveScopedToMerchant(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 100, nil)
		other := f.merchant(t, "other@example.com")
		for name, id := range map[string]string{"foreign": inv.ID, "unknown": kassa.NewUUID(), "garbage": "x"} {
			t.Run(name, func(t *testing.T) {
				merchant := f.m.ID
				if name == "foreign" {
					merchant = other.ID
				}
				_, err := f.db.Invoice(f.ctx, merchant, id)
				wantErr(t, err, kassa.KindNotFound, "resource_missing")
			})
		}
	})
}

func TestInvoiceExpiryVisibleAtOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 100, func(c *kassa.InvoiceCreate) { c.ExpiresIn = ptr(time.Minute) })
		f.clock.Advance(time.Minute - time.Microsecond)
		got, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
		must(t, err)
		if got.Status != kassa.StatusUnpaid {
			t.Fatalf("status before expiry = %s", got.Status)
		}
		f.clock.Advance(time.Microsecond)
		got, err = f.db.Invoice(f.ctx, f.m.ID, inv.ID)
		must(t, err)
		if got.Status != kassa.StatusExpired {
			t.Fatalf("status at expiry = %s, want expired", got.Status)
		}
		list, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID})
		must(t, err)
		if len(list) != 1 || list[0].Status != kassa.StatusExpired {
			t.Fatalf("listed status = %s, want expired", list[0].Status)
		}
	})
}

func TestInvoiceCancel(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 100, nil)
		f.clock.Advance(time.Second)
		c, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), inv.ID)
		must(t, err)
		at := f.clock.Now().Truncate(time.Microsecond)
		if c.Status != kassa.StatusCanceled || c.CanceledAt == nil || !c.CanceledAt.Equal(at) {
			t.Fatalf("canceled = %s", jsonOf(t, c))
		}
		got, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
		must(t, err)
		if jsonOf(t, got) != jsonOf(t, c) {
			t.Fatalf("read back %s, want %s", jsonOf(t, got), jsonOf(t, c))
		}
		events, err := f.recentEvents(10)
		must(t, err)
		var types []string
		for _, e := range events {
			types = append(types, e.Type)
		}
		if len(types) != 3 || types[0] != kassa.EventInvoiceUpdated || types[1] != kassa.EventInvoiceCanceled || types[2] != kassa.EventInvoiceCreated {
			t.Fatalf("event types (newest first) = %v", types)
		}
		if string(events[0].Data) != jsonOf(t, c) {
			t.Fatalf("updated event data %s, want %s", events[0].Data, jsonOf(t, c))
		}

		expired := f.invoice(t, f.m, 100, func(c *kassa.InvoiceCreate) { c.ExpiresIn = ptr(time.Minute) })
		f.clock.Advance(time.Minute)
		other := f.merchant(t, "other@example.com")
		fresh := f.invoice(t, f.m, 1000, nil)
		mainnet := principal(f.m)
		mainnet.Environment = kassa.Mainnet
		tests := []struct {
			name string
			p    kassa.Principal
			id   string
			kind kassa.ErrorKind
			code string
		}{
			{"twice", principal(f.m), inv.ID, kassa.KindConflict, "invoice_not_cancelable"},
			{"expired", principal(f.m), expired.ID, kassa.KindConflict, "invoice_not_cancelable"},
			{"foreign", principal(other), expired.ID, kassa.KindNotFound, "resource_missing"},
			{"unknown", principal(f.m), kassa.NewUUID(), kassa.KindNotFound, "resource_missing"},
			{"other environment", mainnet, fresh.ID, kassa.KindPermission, "environment_mismatch"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, tt.p, tt.id)
				wantErr(t, err, tt.kind, tt.code)
			})
		}
		if events, _ := f.recentEvents(10); len(events) != 5 {
			t.Fatalf("%d events, want 5 (refused cancels write none)", len(events))
		}
	})
}
