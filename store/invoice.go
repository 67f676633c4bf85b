package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.InvoiceService = (*DB)(nil)

const invoiceColumns = `id, merchant_id, environment, status, invoice_type, currency, amount, amount_paid,
	amount_pending, description, customer_id, customer_email, invoice_title, invoice_footer,
	payment_return_url, payment_return_url_enabled, receiver_override_enabled, receiver_override_address,
	questions, metadata, payer_wallet_address, payer_wallet_network, commerce_order_id,
	expires_at, created_at, paid_at, last_payment_at, canceled_at, locked_token_id, form_responses, amount_refunded`

// effectiveStatusSQL is kassa.Invoice.EffectiveStatus as SQL, with nowParam the
// placeholder of the time now in microseconds: an open invoice past its expiry with
// nothing pending reads expired. Filters, paging and totals all use it, so they agree
// with what is shown.
func effectiveStatusSQL(nowParam string) string {
	return "(CASE WHEN status IN ('unpaid', 'underpaid') AND expires_at <= " + nowParam +
		" AND amount_pending = 0 THEN 'expired' ELSE status END)"
}

// CreateInvoice stores a new unpaid invoice in the principal's environment, with its
// defaults taken from the merchant's settings, and its invoice.created event in the
// same transaction. It returns the invoice and its payment session token, which is
// stored only as a hash.
func (db *DB) CreateInvoice(ctx context.Context, p kassa.Principal, c kassa.InvoiceCreate, save *kassa.SavedResponse[kassa.CreatedInvoice]) (*kassa.Invoice, string, error) {
	if err := c.Validate(); err != nil {
		return nil, "", err
	}
	if !p.Environment.Valid() {
		return nil, "", kassa.Invalidf("environment", "invalid_environment", "environment must be devnet or mainnet.")
	}
	if err := checkStorable(c); err != nil {
		return nil, "", err
	}
	// Everything but the writes happens before the transaction, on the caller's
	// goroutine: on SQLite the writer runs one transaction at a time, so the
	// merchant read, the JSON of the event and the response, and sealing it would
	// otherwise hold up every other write. The writer is told this create is
	// coming, so the commit it is gathering can wait for it.
	told := db.announceWrite()
	defer told.withdraw() // a no-op once the writer has the transaction
	now := db.clock()
	m, err := db.merchantFor(ctx, p.MerchantID, p.Environment)
	if err != nil {
		return nil, "", err
	}
	inv, err := newInvoiceFor(m, p.Environment, c, now)
	if err != nil {
		return nil, "", err
	}
	token := kassa.NewSessionToken(inv.ID)
	ev, err := kassa.NewEvent(inv.MerchantID, inv.Environment, kassa.EventInvoiceCreated, inv, now)
	if err != nil {
		return nil, "", fmt.Errorf("store: event %s: %w", kassa.EventInvoiceCreated, err)
	}
	z := kassa.Deflate(nil, ev.Data) // the event's data as stored: deflated here, not in the writer
	var (
		status       int
		body, stored []byte
	)
	if save != nil {
		if status, body, err = save.Render(kassa.CreatedInvoice{Invoice: inv, SessionToken: token}); err != nil {
			return nil, "", err
		}
		// The response holds the invoice the event carries: saved as a reference to it.
		stored = save.StoredRef(body, kassa.ResponseRef{EventID: ev.ID, Data: ev.Data})
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
		return nil, "", err
	}
	if save != nil {
		save.Save(status, body)
	}
	return inv, token, nil
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

// insertInvoice stores a new invoice of a validated request, with its session
// token (returned) and invoice.created event, through tx, checking the merchant's
// mainnet access.
func (db *DB) insertInvoice(ctx context.Context, tx txq, p kassa.Principal, c kassa.InvoiceCreate) (*kassa.Invoice, string, error) {
	m, err := db.merchant(ctx, tx, p.MerchantID, "")
	if err != nil {
		return nil, "", err
	}
	now := db.clock()
	inv, err := newInvoiceFor(m, p.Environment, c, now)
	if err != nil {
		return nil, "", err
	}
	token := kassa.NewSessionToken(inv.ID)
	if err := insertInvoiceRow(ctx, tx, inv, token); err != nil {
		return nil, "", err
	}
	if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, kassa.EventInvoiceCreated); err != nil {
		return nil, "", err
	}
	tx.note(note{kind: noteCreated})
	return inv, token, nil
}

// newInvoiceFor builds the merchant's new invoice, refusing mainnet to a merchant
// without mainnet access.
func newInvoiceFor(m *kassa.Merchant, env kassa.Environment, c kassa.InvoiceCreate, now time.Time) (*kassa.Invoice, error) {
	if env == kassa.Mainnet && !m.MainnetEnabled {
		return nil, &kassa.Error{Kind: kassa.KindPermission, Code: "mainnet_not_enabled",
			Message: "Mainnet access is not enabled for this merchant; request it first."}
	}
	return newInvoice(m, env, c, now), nil
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

// checkStorable refuses text the domain validation lets through but a TEXT column
// cannot hold: raw metadata bytes that are not UTF-8, NUL characters.
func checkStorable(c kassa.InvoiceCreate) error {
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

// newInvoice builds a new invoice from a validated request and the merchant's defaults.
func newInvoice(m *kassa.Merchant, env kassa.Environment, c kassa.InvoiceCreate, now time.Time) *kassa.Invoice {
	ttl := kassa.DefaultInvoiceTTL
	if c.ExpiresIn != nil {
		ttl = *c.ExpiresIn
	}
	inv := &kassa.Invoice{
		ID: kassa.NewTimeUUID(now), MerchantID: m.ID, Environment: env, Status: kassa.StatusUnpaid,
		Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: c.Amount,
		Description: c.Description, CustomerID: c.CustomerID, CustomerEmail: c.CustomerEmail,
		InvoiceTitle: m.CompanyName, InvoiceFooter: m.CompanyName,
		PaymentReturnURL: m.DefaultReturnURL, PaymentReturnURLEnabled: true,
		ReceiverOverrideEnabled: c.ReceiverOverrideEnable, ReceiverOverrideAddress: c.ReceiverOverrideAddress,
		Questions: c.Questions, Metadata: c.Metadata, CommerceOrderID: c.CommerceOrderID,
		ExpiresAt: now.Add(ttl).Truncate(time.Microsecond), CreatedAt: now,
	}
	if c.InvoiceTitle != nil {
		inv.InvoiceTitle = *c.InvoiceTitle
	}
	if c.InvoiceFooter != nil {
		inv.InvoiceFooter = *c.InvoiceFooter
	}
	if c.PaymentReturnURL != nil {
		inv.PaymentReturnURL = c.PaymentReturnURL
	}
	if c.PaymentReturnURLEnabled != nil {
		inv.PaymentReturnURLEnabled = *c.PaymentReturnURLEnabled
	}
	if inv.Metadata == nil {
		inv.Metadata = []byte("{}")
	}
	return inv
}

// Invoice returns one of the merchant's invoices with its status as of now.
func (db *DB) Invoice(ctx context.Context, merchantID int64, id string) (*kassa.Invoice, error) {
	inv, err := db.invoice(bounded(ctx), db.r, merchantID, id, "") // one row by its key
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
