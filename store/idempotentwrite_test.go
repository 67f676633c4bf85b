package store_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
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
		iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Claimed: true, Render: respond}
		inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
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
		iw = &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Claimed: true, Render: respond}
		p := principal(f.m)
		p.Environment = kassa.Mainnet
		_, _, err = invoicing.Over(f.db).CreateInvoice(context.Background(), p, kassa.InvoiceCreate{Amount: 1000}, iw)
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

		iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: a, Claimed: true, Render: func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("a"), nil }}
		_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
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

// TestCreateInvoiceInsertsIdempotencyRecord checks the one-commit path: with no
// claim made first, the create inserts the finished record with its invoice; a
// live record under the key (a concurrent request on another instance committed
// first) rolls the invoice back with idempotency_key_in_use; an expired or stale
// record is taken over; IdempotencyRecord reads only live records.
func TestCreateInvoiceInsertsIdempotencyRecord(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		render := func(body string) func(kassa.CreatedInvoice) (int, []byte, error) {
			return func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte(body), nil }
		}
		create := func(s kassa.IdempotencyScope, body string) error {
			t.Helper()
			iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp-" + body, Render: render(body)}
			_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
			return err
		}
		record := func(s kassa.IdempotencyScope) *idempotency.Record {
			t.Helper()
			rec, err := f.db.IdempotencyRecord(f.ctx, s)
			must(t, err)
			return rec
		}
		count := func() int {
			t.Helper()
			invs, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 100})
			must(t, err)
			return len(invs)
		}

		s := scope(f, "one-commit")
		if rec := record(s); rec != nil {
			t.Fatalf("record before = %+v", rec)
		}
		must(t, create(s, "first"))
		rec := record(s)
		if rec == nil || !rec.Done || rec.StatusCode != 201 || string(rec.Body) != "first" || rec.Fingerprint != "fp-first" {
			t.Fatalf("record after create = %+v", rec)
		}
		wantErr(t, create(s, "second"), kassa.KindIdempotency, "idempotency_key_in_use")
		if n := count(); n != 1 {
			t.Fatalf("%d invoices after a create under a live key, want 1", n)
		}

		// Past the TTL the record is no longer live: it reads as absent and a
		// create takes the key over.
		f.clock.Advance(kassa.IdempotencyTTL)
		if rec := record(s); rec != nil {
			t.Fatalf("expired record read as %+v", rec)
		}
		must(t, create(s, "third"))
		if rec := record(s); rec == nil || string(rec.Body) != "third" {
			t.Fatalf("record after take-over = %+v", rec)
		}

		// A running claim (made by an instance with a durable claim) is live until
		// IdempotencyStale, then taken over.
		r := scope(f, "running")
		if rec := claim(t, f, r, "fp-x"); rec != nil {
			t.Fatalf("claim = %+v", rec)
		}
		if rec := record(r); rec == nil || rec.Done {
			t.Fatalf("running claim read as %+v", rec)
		}
		wantErr(t, create(r, "blocked"), kassa.KindIdempotency, "idempotency_key_in_use")
		f.clock.Advance(kassa.IdempotencyStale)
		if rec := record(r); rec != nil {
			t.Fatalf("stale claim read as %+v", rec)
		}
		must(t, create(r, "after-stale"))

		// SaveIdempotentResponse (a 500 the store did not save) follows the same rule.
		e := scope(f, "error")
		must(t, f.db.SaveIdempotentResponse(f.ctx, e, "fp-e", 500, []byte("oops")))
		if rec := record(e); rec == nil || rec.StatusCode != 500 || string(rec.Body) != "oops" {
			t.Fatalf("saved 500 = %+v", rec)
		}
		if err := f.db.SaveIdempotentResponse(f.ctx, e, "fp-e", 500, []byte("again")); err != kassa.ErrClaimLost {
			t.Fatalf("second save = %v, want ErrClaimLost", err)
		}
		if n := count(); n != 3 {
			t.Fatalf("%d invoices, want 3", n)
		}
	})
}

// TestCreateInvoiceSavesResponseByReference: a create response that holds its
// invoice is saved as a reference to the invoice.created event (on PostgreSQL both
// the batched insert and the claimed path), the record comes back with the event's
// data, and the response opens byte for byte. The event is looked up in the key's
// merchant and environment only: a record moved to another merchant or
// environment, or whose event is gone, comes back without data (and so does not
// open).
func TestCreateInvoiceSavesResponseByReference(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		sealer := sealed.NewResponses([]byte("secret"))
		raw := storetest.RawDB(t, cfg)
		render := func(ci kassa.CreatedInvoice) (int, []byte, error) {
			inv, err := invoicejson.Marshal(ci.Invoice)
			return 201, append([]byte(`{"session_token":"`+ci.SessionToken+`","invoice":`), append(inv, "}\n"...)...), err
		}
		for _, claimed := range []bool{false, true} {
			s := scope(f, fmt.Sprintf("ref-%v", claimed))
			if claimed {
				if rec := claim(t, f, s, "fp"); rec != nil {
					t.Fatalf("claim = %+v", rec)
				}
			}
			iw := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp", Claimed: claimed, Render: render,
				Seal:    func(body []byte) []byte { return sealer.Seal(s, body) },
				SealRef: func(body []byte, ref *kassa.Event) []byte { return sealer.SealRef(s, body, ref) }}
			_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, iw)
			must(t, err)
			_, body, _ := iw.Saved()
			rec, err := f.db.IdempotencyRecord(f.ctx, s)
			must(t, err)
			id, ok := sealed.RefEventID(rec.Body)
			if !ok || rec.Ref == nil {
				t.Fatalf("claimed %v: record %q refers to %q, data %q", claimed, rec.Body, id, rec.Ref)
			}
			if got, err := sealer.Open(s, rec.Body, rec.Ref); err != nil || !bytes.Equal(got, body) {
				t.Fatalf("claimed %v: opened %q, %v; want %q", claimed, got, err, body)
			}
			if rec := claim(t, f, s, "fp"); rec == nil {
				t.Fatalf("claimed %v: the key is free after the create", claimed)
			} else if got, err := sealer.Open(s, rec.Body, rec.Ref); err != nil || !bytes.Equal(got, body) {
				t.Fatalf("claimed %v: the claim's record opened %q, %v", claimed, got, err)
			}

			other := f.merchant(t, fmt.Sprintf("other-%v@example.com", claimed))
			moved := s
			moved.MerchantID = other.ID
			if _, err := raw.ExecContext(f.ctx, "UPDATE idempotency_keys SET merchant_id = $1 WHERE idempotency_key = $2",
				other.ID, s.Key); err != nil {
				t.Fatal(err)
			}
			if rec, err := f.db.IdempotencyRecord(f.ctx, moved); err != nil || rec == nil || rec.Ref != nil {
				t.Fatalf("claimed %v: under another merchant: record %v, %v; want it without the event's data", claimed, rec != nil, err)
			}
			if _, err := raw.ExecContext(f.ctx, "UPDATE idempotency_keys SET merchant_id = $1 WHERE idempotency_key = $2",
				f.m.ID, s.Key); err != nil {
				t.Fatal(err)
			}
			moved = s
			moved.Environment = kassa.Mainnet
			if _, err := raw.ExecContext(f.ctx, "UPDATE idempotency_keys SET environment = $1 WHERE idempotency_key = $2",
				string(kassa.Mainnet), s.Key); err != nil {
				t.Fatal(err)
			}
			if rec, err := f.db.IdempotencyRecord(f.ctx, moved); err != nil || rec == nil || rec.Ref != nil {
				t.Fatalf("claimed %v: in the other environment: record %v, %v; want it without the event's data", claimed, rec != nil, err)
			}
			if _, err := raw.ExecContext(f.ctx, "UPDATE idempotency_keys SET environment = $1 WHERE idempotency_key = $2",
				string(kassa.Devnet), s.Key); err != nil {
				t.Fatal(err)
			}
			if _, err := raw.ExecContext(f.ctx, "DELETE FROM events WHERE id = $1", id); err != nil {
				t.Fatal(err)
			}
			if rec, err := f.db.IdempotencyRecord(f.ctx, s); err != nil || rec == nil || rec.Ref != nil {
				t.Fatalf("claimed %v: without its event: record %v, %v; want it without the event's data", claimed, rec != nil, err)
			}
		}
	})
}
