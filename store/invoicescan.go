package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// invoiceScan holds the destinations of one row of invoiceColumns. A list scans
// all its rows through one: Scan takes its destinations as interfaces, so fresh
// locals per row would each be allocated on the heap (about twenty per invoice, a
// measurable share of a list's CPU with the garbage they make).
type invoiceScan struct {
	id, env, status, typ, currency, title, footer, metadata string
	desc, customer, email, returnURL, override, questions   sql.Null[string]
	wallet, network, order, responses                       sql.Null[string]
	merchantID, amount, paid, pending, expires, created     intCol
	paidAt, lastPayment, canceled, locked, refunded         intCol
	returnEnabled, overrideEnabled                          bool
	dests                                                   []any
}

// invoiceRow is a scanned invoice with the values its optional fields point at:
// one allocation per row, rather than one per field that is set.
type invoiceRow struct {
	inv                                                                kassa.Invoice
	desc, customer, email, returnURL, override, wallet, network, order string
	paidAt, lastPayment, canceled                                      time.Time
	locked                                                             int64
}

// scanInvoice reads one row of invoiceColumns.
func scanInvoice(s scanner) (*kassa.Invoice, error) {
	var sc invoiceScan
	return sc.scan(s)
}

// scan reads one row of invoiceColumns into a new invoice. An integer column that
// is NOT NULL must not be NULL, as when it was scanned into an int64.
func (sc *invoiceScan) scan(s scanner) (*kassa.Invoice, error) {
	if err := s.Scan(sc.destinations()...); err != nil {
		return nil, err
	}
	return sc.invoice()
}

// destinations returns the scan destinations, one per column of invoiceColumns.
func (sc *invoiceScan) destinations() []any {
	if sc.dests == nil {
		sc.dests = []any{&sc.id, &sc.merchantID, &sc.env, &sc.status, &sc.typ, &sc.currency, &sc.amount, &sc.paid,
			&sc.pending, &sc.desc, &sc.customer, &sc.email, &sc.title, &sc.footer,
			&sc.returnURL, &sc.returnEnabled, &sc.overrideEnabled, &sc.override,
			&sc.questions, &sc.metadata, &sc.wallet, &sc.network, &sc.order,
			&sc.expires, &sc.created, &sc.paidAt, &sc.lastPayment, &sc.canceled, &sc.locked, &sc.responses, &sc.refunded}
	}
	return sc.dests
}

// invoice builds a new invoice of the scanned row.
func (sc *invoiceScan) invoice() (*kassa.Invoice, error) {
	if !sc.merchantID.Valid || !sc.amount.Valid || !sc.paid.Valid || !sc.pending.Valid || !sc.expires.Valid || !sc.created.Valid {
		return nil, fmt.Errorf("store: invoice %s: a NOT NULL integer is NULL", sc.id)
	}
	r := &invoiceRow{}
	inv := &r.inv
	inv.ID, inv.MerchantID, inv.Type, inv.Currency = sc.id, sc.merchantID.V, sc.typ, sc.currency
	inv.Environment, inv.Status = kassa.Environment(sc.env), kassa.InvoiceStatus(sc.status)
	inv.Amount, inv.AmountPaid, inv.AmountPending = kassa.Millis(sc.amount.V), kassa.Millis(sc.paid.V), kassa.Millis(sc.pending.V)
	inv.InvoiceTitle, inv.InvoiceFooter = sc.title, sc.footer
	if sc.refunded.Valid {
		inv.AmountRefunded = kassa.Millis(sc.refunded.V)
	}
	inv.PaymentReturnURLEnabled, inv.ReceiverOverrideEnabled = sc.returnEnabled, sc.overrideEnabled
	inv.Description = optString(sc.desc, &r.desc)
	inv.CustomerID = optString(sc.customer, &r.customer)
	inv.CustomerEmail = optString(sc.email, &r.email)
	inv.PaymentReturnURL = optString(sc.returnURL, &r.returnURL)
	inv.ReceiverOverrideAddress = optString(sc.override, &r.override)
	inv.PayerWalletAddress = optString(sc.wallet, &r.wallet)
	inv.PayerWalletNetwork = optString(sc.network, &r.network)
	inv.CommerceOrderID = optString(sc.order, &r.order)
	if sc.questions.Valid {
		if err := json.Unmarshal([]byte(sc.questions.V), &inv.Questions); err != nil {
			return nil, fmt.Errorf("store: invoice %s questions: %w", inv.ID, err)
		}
		if inv.Questions == nil {
			inv.Questions = []kassa.Question{}
		}
	}
	inv.Metadata = []byte(sc.metadata)
	inv.ExpiresAt, inv.CreatedAt = fromMicros(sc.expires.V), fromMicros(sc.created.V)
	inv.PaidAt = optTime(sc.paidAt, &r.paidAt)
	inv.LastPaymentAt = optTime(sc.lastPayment, &r.lastPayment)
	inv.CanceledAt = optTime(sc.canceled, &r.canceled)
	if sc.locked.Valid {
		r.locked = sc.locked.V
		inv.LockedTokenID = &r.locked
	}
	if sc.responses.Valid {
		if err := json.Unmarshal([]byte(sc.responses.V), &inv.FormResponses); err != nil {
			return nil, fmt.Errorf("store: invoice %s form responses: %w", inv.ID, err)
		}
	}
	return inv, nil
}

// optString stores a non-NULL value in *slot and points at it; NULL is nil.
func optString(v sql.Null[string], slot *string) *string {
	if !v.Valid {
		return nil
	}
	*slot = v.V
	return slot
}

// optTime stores a non-NULL time (unix microseconds) in *slot and points at it.
func optTime(v intCol, slot *time.Time) *time.Time {
	if !v.Valid {
		return nil
	}
	*slot = fromMicros(v.V)
	return slot
}

// intCol scans an integer column, NULL or not, without database/sql's reflection:
// both drivers give int64, taken as it is; any other value converts as it would into
// a sql.Null[int64].
type intCol sql.Null[int64]

// Scan implements sql.Scanner.
func (c *intCol) Scan(src any) error {
	if v, ok := src.(int64); ok {
		c.V, c.Valid = v, true
		return nil
	}
	return (*sql.Null[int64])(c).Scan(src)
}
