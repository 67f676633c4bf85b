package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.PayorService = (*DB)(nil)

// InvoiceBySession finds the invoice of a payment session token, with its status
// as of now. A token that names its invoice (kassa.NewSessionToken) is looked up
// by that id and its hash; an older token by its hash alone, in the index of
// those (see sessionHash). Like the index lookup before it, the comparison is of
// SHA-256 hashes, whose prefixes a caller cannot choose, so its timing tells
// nothing about the stored token.
func (db *DB) InvoiceBySession(ctx context.Context, token string) (*kassa.Invoice, error) {
	var row *sql.Row
	if id, ok := kassa.SessionInvoiceID(token); ok {
		row = db.r.QueryRowContext(ctx, sessionByIDQuery, id, sessionHash(token))
	} else {
		row = db.r.QueryRowContext(ctx, sessionByHashQuery, kassa.HashSecret(token))
	}
	inv, err := scanInvoice(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.ErrSessionNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("store: invoice by session: %w", err)
	}
	now := db.clock()
	if !kassa.SessionOpen(inv, now) {
		return nil, kassa.ErrSessionNotFound()
	}
	inv.Status = inv.EffectiveStatus(now)
	return inv, nil
}

// The lookups of InvoiceBySession: by the id a token names, and by the hash of an
// older token (PostgreSQL's index of those is partial, on this length).
const (
	sessionByIDQuery   = "SELECT " + invoiceColumns + " FROM invoices WHERE id = $1 AND session_token_hash = $2"
	sessionByHashQuery = "SELECT " + invoiceColumns + " FROM invoices WHERE session_token_hash = $1 AND length(session_token_hash) = 32"
)

// sessionHash is what an invoice keeps of its session token (session_token_hash):
// for a token that names its invoice, the id's 16 bytes and then the token's
// SHA-256, so new rows enter the column's unique index (SQLite's cannot be dropped
// in place) in id order, at its right edge, not on a random page; for a token
// from before, its SHA-256 alone, 32 bytes, the only length PostgreSQL's partial
// index and the lookup by hash consider.
func sessionHash(token string) []byte {
	id, ok := kassa.SessionInvoiceID(token)
	if !ok {
		return kassa.HashSecret(token)
	}
	b, _ := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	return append(b, kassa.HashSecret(token)...)
}

// payorUpdate runs change on an invoice the payor may still change (param names
// what changes in errors), with the invoice row locked and its status as of now;
// change writes the row and its event through tx.
func (db *DB) payorUpdate(ctx context.Context, merchantID int64, invoiceID, param string,
	change func(tx txq, inv *kassa.Invoice, now time.Time) error) (*kassa.Invoice, error) {
	var inv *kassa.Invoice
	err := db.tx(ctx, func(tx txq) error {
		var err error
		if inv, err = db.invoice(ctx, tx, merchantID, invoiceID, db.forUpdate()); err != nil {
			return err
		}
		now := db.clock()
		inv.Status = inv.EffectiveStatus(now)
		if err := kassa.CheckPayorUpdate(inv.Status, param); err != nil {
			return err
		}
		return change(tx, inv, now)
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}

// SetCustomerEmail stores the payor's email and writes invoice.updated, in one
// transaction.
func (db *DB) SetCustomerEmail(ctx context.Context, merchantID int64, invoiceID, email string) (*kassa.Invoice, error) {
	if err := kassa.CheckEmail("email", email); err != nil {
		return nil, err
	}
	return db.payorUpdate(ctx, merchantID, invoiceID, "email", func(tx txq, inv *kassa.Invoice, now time.Time) error {
		if inv.CustomerEmail != nil && *inv.CustomerEmail == email {
			return nil // unchanged: no event
		}
		if _, err := tx.ExecContext(ctx, "UPDATE invoices SET customer_email = $1 WHERE id = $2 AND merchant_id = $3",
			email, inv.ID, merchantID); err != nil {
			return fmt.Errorf("store: set customer email: %w", err)
		}
		inv.CustomerEmail = &email
		return writeEvents(ctx, tx, merchantID, inv.Environment, inv, now, kassa.EventInvoiceUpdated)
	})
}

// SubmitForm stores the payor's answers and writes invoice.updated, in one transaction.
func (db *DB) SubmitForm(ctx context.Context, merchantID int64, invoiceID string, rs []kassa.FormResponse) (*kassa.Invoice, error) {
	return db.payorUpdate(ctx, merchantID, invoiceID, "responses", func(tx txq, inv *kassa.Invoice, now time.Time) error {
		if err := kassa.CheckResponses(inv.Questions, rs); err != nil {
			return err
		}
		if rs == nil {
			rs = []kassa.FormResponse{}
		}
		b, err := json.Marshal(rs)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE invoices SET form_responses = $1 WHERE id = $2 AND merchant_id = $3",
			string(b), inv.ID, merchantID); err != nil {
			return fmt.Errorf("store: submit form: %w", err)
		}
		inv.FormResponses = rs
		return writeEvents(ctx, tx, merchantID, inv.Environment, inv, now, kassa.EventInvoiceUpdated)
	})
}
