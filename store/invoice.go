package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/deflate"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/invoicing"
)

var _ invoicing.Store = (*DB)(nil)

const invoiceColumns = `id, merchant_id, environment, status, invoice_type, currency, amount, amount_paid,
	amount_pending, description, customer_id, customer_email, invoice_title, invoice_footer,
	payment_return_url, payment_return_url_enabled, receiver_override_enabled, receiver_override_address,
	questions, metadata, payer_wallet_address, payer_wallet_network, commerce_order_id,
	expires_at, created_at, paid_at, last_payment_at, canceled_at, locked_token_id, form_responses, amount_refunded`

// effectiveStatusSQL is kassa.Invoice.EffectiveStatus as SQL, with nowParam the
// placeholder of the time now in microseconds: an open invoice past its expiry with
// nothing pending reads expired. Filters, paging and totals all use it, so they agree
// with what is shown. It is the one rule the store writes itself, as SQL, because a
// page or a sum must filter on it in the query; TestEffectiveStatusSQLIsTheGoRule
// checks it against the Go rule on both engines.
func effectiveStatusSQL(nowParam string) string {
	return "(CASE WHEN status IN ('unpaid', 'underpaid') AND expires_at <= " + nowParam +
		" AND amount_pending = 0 THEN 'expired' ELSE status END)"
}

// InsertInvoice stores a new invoice made by the invoice service, with its session
// token (stored only as a hash) and its invoice.created event at the invoice's
// creation time, in one transaction; behind the idempotency layer (save not nil)
// the response is saved in the same transaction.
func (db *DB) InsertInvoice(ctx context.Context, inv *kassa.Invoice, token string, save *kassa.SavedResponse[kassa.CreatedInvoice]) error {
	// Everything but the writes happens before the transaction, on the caller's
	// goroutine: on SQLite the writer runs one transaction at a time, so the JSON
	// of the event and the response, and sealing it, would otherwise hold up every
	// other write. The writer is told this create is coming, so the commit it is
	// gathering can wait for it.
	told := db.announceWrite()
	defer told.withdraw() // a no-op once the writer has the transaction
	data, err := invoicejson.EventData(inv)
	if err != nil {
		return fmt.Errorf("store: event %s: %w", kassa.EventInvoiceCreated, err)
	}
	ev := kassa.NewEvent(inv.MerchantID, inv.Environment, kassa.EventInvoiceCreated, data, inv.CreatedAt)
	z := deflate.Deflate(nil, ev.Data) // the event's data as stored: deflated here, not in the writer
	var (
		status       int
		body, stored []byte
	)
	if save != nil {
		if status, body, err = save.Render(kassa.CreatedInvoice{Invoice: inv, SessionToken: token}); err != nil {
			return err
		}
		// The response holds the invoice the event carries: saved as a reference to it.
		stored = save.StoredRef(body, ev)
	}
	if db.engine == EnginePostgres && (save == nil || !save.Claimed) {
		w := pgInvoiceWrite{inv: inv, token: token, event: ev, z: z}
		if save != nil {
			w.save = &pgSaved{scope: save.Scope, fingerprint: save.Fingerprint, status: status, stored: stored}
		}
		err = db.creates.do(ctx, w)
	} else {
		err = db.txAnnounced(ctx, told, func(tx txq) error {
			if err := insertInvoiceRow(ctx, tx, inv, token); err != nil {
				return err
			}
			if err := writeEvent(ctx, tx, ev, z, inv.ID); err != nil {
				return err
			}
			tx.note(note{kind: noteCreated})
			if save == nil {
				return nil
			}
			return saveIdempotent(ctx, tx, save.Scope, save.Fingerprint, save.Claimed, status, stored, db.clock())
		})
	}
	if err != nil {
		return err
	}
	if save != nil {
		save.Save(status, body)
	}
	return nil
}

// idempotentTx runs fn in a write transaction. Behind the idempotency layer (save
// not nil) the response rendered from fn's result is saved in the same
// transaction: one commit, and no change a crash could leave without its saved
// response.
func idempotentTx[T any](ctx context.Context, db *DB, save *kassa.SavedResponse[T], fn func(tx txq) (T, error)) error {
	var (
		status int
		body   []byte
	)
	err := db.tx(ctx, func(tx txq) error {
		result, err := fn(tx)
		if err != nil || save == nil {
			return err
		}
		if status, body, err = save.Render(result); err != nil {
			return err
		}
		return saveIdempotent(ctx, tx, save.Scope, save.Fingerprint, save.Claimed, status, save.Stored(body), db.clock())
	})
	if err == nil && save != nil {
		save.Save(status, body)
	}
	return err
}

// saveIdempotent saves a response in the transaction of its change: it completes
// the request's claim in the store (claimed), or inserts the finished record.
func saveIdempotent(ctx context.Context, tx txq, s kassa.IdempotencyScope, fingerprint string, claimed bool,
	status int, stored []byte, now time.Time) error {
	if claimed {
		return completeIdempotency(ctx, tx, s, status, stored)
	}
	return insertIdempotency(ctx, tx, s, fingerprint, status, stored, now)
}

// insertInvoice stores a new invoice made by the invoice service, with its
// session token and invoice.created event, through tx.
func insertInvoice(ctx context.Context, tx txq, inv *kassa.Invoice, token string) error {
	if err := insertInvoiceRow(ctx, tx, inv, token); err != nil {
		return err
	}
	if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, inv.CreatedAt, kassa.EventInvoiceCreated); err != nil {
		return err
	}
	tx.note(note{kind: noteCreated})
	return nil
}

// insertInvoiceRow inserts a new invoice; its session token is stored as a hash.
func insertInvoiceRow(ctx context.Context, tx txq, inv *kassa.Invoice, token string) error {
	query, args, err := invoiceInsert(inv, token)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("store: create invoice: %w", err)
	}
	return nil
}

// invoiceInsert returns the statement that inserts a new invoice and its arguments.
func invoiceInsert(inv *kassa.Invoice, token string) (string, []any, error) {
	var questions any
	if inv.Questions != nil {
		b, err := json.Marshal(inv.Questions)
		if err != nil {
			return "", nil, fmt.Errorf("store: invoice questions: %w", err)
		}
		questions = string(b)
	}
	return `INSERT INTO invoices (id, merchant_id, environment, status, invoice_type,
		currency, amount, amount_paid, amount_pending, description, customer_id, customer_email,
		invoice_title, invoice_footer, payment_return_url, payment_return_url_enabled,
		receiver_override_enabled, receiver_override_address, questions, metadata, commerce_order_id,
		session_token_hash, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
		[]any{inv.ID, inv.MerchantID, string(inv.Environment), string(inv.Status), inv.Type, inv.Currency, int64(inv.Amount),
			nullString(inv.Description), nullString(inv.CustomerID), nullString(inv.CustomerEmail),
			inv.InvoiceTitle, inv.InvoiceFooter, nullString(inv.PaymentReturnURL), inv.PaymentReturnURLEnabled,
			inv.ReceiverOverrideEnabled, nullString(inv.ReceiverOverrideAddress), questions, string(inv.Metadata),
			nullString(inv.CommerceOrderID), sessionHash(token), micros(inv.ExpiresAt), micros(inv.CreatedAt)}, nil
}

// CheckStorable refuses text the domain validation lets through but a TEXT column
// cannot hold: raw metadata bytes that are not UTF-8, NUL characters.
func (db *DB) CheckStorable(c kassa.InvoiceCreate) error {
	if !storable(string(c.Metadata)) {
		return kassa.Invalidf("metadata", "invalid_metadata", "metadata must be UTF-8 JSON.")
	}
	for _, f := range []struct {
		param string
		v     *string
	}{
		{"description", c.Description}, {"customer_id", c.CustomerID}, {"customer_email", c.CustomerEmail},
		{"invoice_title", c.InvoiceTitle}, {"invoice_footer", c.InvoiceFooter},
		{"payment_return_url", c.PaymentReturnURL}, {"receiver_override_address", c.ReceiverOverrideAddress},
		{"commerce_order_id", c.CommerceOrderID},
	} {
		if f.v != nil && !storable(*f.v) {
			return kassa.Invalidf(f.param, "invalid_"+f.param, "%s must be valid UTF-8 text.", f.param)
		}
	}
	return nil
}

// Invoice returns one of the merchant's invoices with its status as of now.
func (db *DB) Invoice(ctx context.Context, merchantID int64, id string) (*kassa.Invoice, error) {
	return db.effectiveInvoice(bounded(ctx), db.r, merchantID, id) // one row by its key
}

// effectiveInvoice loads an invoice through q with its effective status.
func (db *DB) effectiveInvoice(ctx context.Context, q queryer, merchantID int64, id string) (*kassa.Invoice, error) {
	inv, err := db.invoice(ctx, q, merchantID, id, "")
	if err != nil {
		return nil, err
	}
	inv.Status = inv.EffectiveStatus(db.clock())
	return inv, nil
}

// invoice loads an invoice as stored (no effective status) through q.
func (db *DB) invoice(ctx context.Context, q queryer, merchantID int64, id, lock string) (*kassa.Invoice, error) {
	if !kassa.ValidUUID(id) { // every invoice id is a UUID
		return nil, kassa.NotFound("invoice")
	}
	inv, err := scanInvoice(q.QueryRowContext(ctx,
		"SELECT "+invoiceColumns+" FROM invoices WHERE id = $1 AND merchant_id = $2"+lock, id, merchantID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("invoice")
	}
	if err != nil {
		return nil, fmt.Errorf("store: load invoice: %w", err)
	}
	return inv, nil
}
