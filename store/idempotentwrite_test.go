package store_test

import (
	"context"
	"testing"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// TestCreateInvoiceSavesIdempotentResponse checks that an invoice created under a
// claimed key has its response saved in the same transaction, and that a create the
// store refuses saves nothing and leaves the claim running for the caller to release.
func TestCreateInvoiceSavesIdempotentResponse(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		respond := func(result kassa.CreatedInvoice) (int, []byte, error) {
			return 201, []byte(`{"invoice_id":"` + result.Invoice.ID + `"}`), nil
		}

		s := scope(f, "created")
		if rec := claim(t, f, s, "fp"); rec != nil {
			t.Fatalf("claim = %+v", rec)
		}
		iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Render: respond}
		inv, _, err := f.db.CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
		must(t, err)
		status, body, ok := iw.Saved()
		want := `{"invoice_id":"` + inv.ID + `"}`
		if !ok || status != 201 || string(body) != want {
			t.Fatalf("Saved() = %d %q %v, want 201 %q", status, body, ok, want)
		}
		rec := claim(t, f, s, "fp")
		if rec == nil || !rec.Done || rec.StatusCode != 201 || string(rec.Body) != want {
			t.Fatalf("record after create = %+v", rec)
		}

		// A mainnet invoice for a merchant without mainnet access is refused.
		s = scope(f, "refused")
		s.Environment = kassa.Mainnet
		if rec := claim(t, f, s, "fp"); rec != nil {
			t.Fatalf("claim = %+v", rec)
		}
		iw = &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Render: respond}
		p := principal(f.m)
		p.Environment = kassa.Mainnet
		_, _, err = f.db.CreateInvoice(context.Background(), p, kassa.InvoiceCreate{Amount: 1000}, iw)
		wantErr(t, err, kassa.KindPermission, "mainnet_not_enabled")
		if _, _, ok := iw.Saved(); ok {
			t.Fatal("a refused create saved a response")
		}
		if rec := claim(t, f, s, "fp"); rec == nil || rec.Done {
			t.Fatalf("record after refused create = %+v, want the running claim", rec)
		}
	})
}

// TestIdempotencyClaimTakenOver checks that a request whose claim was taken over
// (it ran past kassa.IdempotencyStale) can neither save nor release the new owner's
// claim, and that its invoice is rolled back rather than made a second time.
func TestIdempotencyClaimTakenOver(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		a, b := scope(f, "k"), scope(f, "k")
		a.Owner, b.Owner = "owner-a", "owner-b"
		if rec := claim(t, f, a, "fp"); rec != nil {
			t.Fatalf("claim A = %+v", rec)
		}
		f.clock.Advance(kassa.IdempotencyStale)
		if rec := claim(t, f, b, "fp"); rec != nil {
			t.Fatalf("claim B after A went stale = %+v, want ownership", rec)
		}

		iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: a, Render: func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("a"), nil }}
		_, _, err := f.db.CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
		wantErr(t, err, kassa.KindIdempotency, "idempotency_key_in_use")
		if invs, _, _ := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID}); len(invs) != 0 {
			t.Fatalf("%d invoices after a lost claim, want 0", len(invs))
		}
		must(t, f.db.CompleteIdempotencyKey(f.ctx, a, 500, []byte("a")))
		must(t, f.db.ReleaseIdempotencyKey(f.ctx, a))
		if rec := claim(t, f, scope(f, "k"), "fp"); rec == nil || rec.Done {
			t.Fatalf("B's claim after A's complete and release = %+v, want it running", rec)
		}
		must(t, f.db.CompleteIdempotencyKey(f.ctx, b, 201, []byte("b")))
		if rec := claim(t, f, scope(f, "k"), "fp"); rec == nil || !rec.Done || string(rec.Body) != "b" {
			t.Fatalf("record = %+v, want B's response", rec)
		}
	})
}
