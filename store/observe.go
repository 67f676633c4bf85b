package store

import "github.com/kassapay/kassa"

// Observer learns what committed write transactions changed, once they have
// committed: package metrics counts invoices, their status changes, payments and
// settlements from it. Nothing is reported for a transaction that rolled back, and
// each instance reports only its own commits, so the counts of several instances
// on one database add up. Calls are made on the committing goroutine: they must be
// quick and must not call the store.
type Observer interface {
	// InvoiceCreated is one new invoice (API or commerce checkout).
	InvoiceCreated()
	// InvoiceMoved is one invoice whose stored status changed from from to to.
	InvoiceMoved(from, to kassa.InvoiceStatus)
	// PaymentDetected is one new receipt: a transfer first seen on network in the
	// token of env with id tokenID (chain watcher, verify or devnet payment).
	PaymentDetected(env kassa.Environment, network string, tokenID int64)
	// SettlementFinished is one receipt whose settlement ended as status
	// (settled, failed or manual).
	SettlementFinished(network string, status kassa.SettlementStatus)
}

// noteKind says which Observer call a note becomes.
type noteKind uint8

const (
	noteCreated noteKind = iota
	noteMoved
	notePayment
	noteSettled
)

// note is one change a transaction made that the Observer is told of after commit.
type note struct {
	kind       noteKind
	from, to   kassa.InvoiceStatus
	env        kassa.Environment
	network    string
	tokenID    int64
	settlement kassa.SettlementStatus
}

// txNotes collects a transaction's notes until it commits; nil when the store has
// no Observer, so recording then costs nothing.
type txNotes struct{ notes []note }

// note records n in the transaction's notes, if it keeps any.
func (t txq) note(n note) {
	if t.notes != nil {
		t.notes.notes = append(t.notes.notes, n)
	}
}

// newNotes returns a fresh collection for one transaction, or nil without an Observer.
func (db *DB) newNotes() *txNotes {
	if db.observer == nil {
		return nil
	}
	return &txNotes{}
}

// report tells the Observer what a committed transaction changed.
func (db *DB) report(n *txNotes) {
	if n == nil {
		return
	}
	for _, x := range n.notes {
		switch x.kind {
		case noteCreated:
			db.observer.InvoiceCreated()
		case noteMoved:
			db.observer.InvoiceMoved(x.from, x.to)
		case notePayment:
			db.observer.PaymentDetected(x.env, x.network, x.tokenID)
		case noteSettled:
			db.observer.SettlementFinished(x.network, x.settlement)
		}
	}
}
