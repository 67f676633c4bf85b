package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
)

var _ payment.PaymentAddressService = (*DB)(nil)

// LockPaymentAddress locks the payor's token on the invoice and returns the deposit
// address for the token's network, in one transaction with the invoice row locked.
// A new address takes the next derivation index of its environment and network,
// allocated under a lock (an advisory transaction lock on PostgreSQL); the unique
// constraint on the index backs it up, and a conflict is tried again.
func (db *DB) LockPaymentAddress(ctx context.Context, req payment.PaymentAddressRequest) (*payment.Address, *kassa.Invoice, error) {
	for attempt := 0; ; attempt++ {
		addr, inv, err := db.lockPaymentAddress(ctx, req)
		if isUniqueViolation(err) && attempt < 5 {
			continue
		}
		return addr, inv, err
	}
}

func (db *DB) lockPaymentAddress(ctx context.Context, req payment.PaymentAddressRequest) (*payment.Address, *kassa.Invoice, error) {
	var (
		addr *payment.Address
		inv  *kassa.Invoice
	)
	err := db.tx(ctx, func(tx txq) error {
		var err error
		if inv, err = db.invoice(ctx, tx, req.MerchantID, req.InvoiceID, db.forUpdate()); err != nil {
			return err
		}
		now := db.clock()
		inv.Status = inv.EffectiveStatus(now)
		if err := kassa.CheckTokenLock(inv.Status, inv.LockedTokenID, req.Token.ID); err != nil {
			return err
		}
		if addr, err = paymentAddress(ctx, tx, inv.ID, req.Token.Network); err != nil {
			return err
		}
		if addr == nil {
			addr, err = db.newPaymentAddress(ctx, tx, inv, req, now)
		} else if !addr.QuoteCurrent(req.Token.ID, inv.AmountRemaining(), now) {
			err = db.requote(ctx, tx, inv, addr, req)
		}
		if err != nil {
			return err
		}
		if inv.LockedTokenID != nil && *inv.LockedTokenID == req.Token.ID {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "UPDATE invoices SET locked_token_id = $1 WHERE id = $2 AND merchant_id = $3",
			req.Token.ID, inv.ID, inv.MerchantID); err != nil {
			return fmt.Errorf("store: lock token: %w", err)
		}
		id := req.Token.ID
		inv.LockedTokenID = &id
		return writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, kassa.EventInvoiceUpdated)
	})
	if err != nil {
		return nil, nil, err
	}
	return addr, inv, nil
}

// PaymentAddress returns the invoice's address on network as last quoted, nil
// when there is none. The caller has found the invoice for its merchant.
func (db *DB) PaymentAddress(ctx context.Context, invoiceID, network string) (*payment.Address, error) {
	return paymentAddress(ctx, db.r, invoiceID, network)
}

func paymentAddress(ctx context.Context, q queryer, invoiceID, network string) (*payment.Address, error) {
	var (
		a              payment.Address
		env, units, rt string
		index, expires int64
		usd            int64
	)
	err := q.QueryRowContext(ctx, `SELECT invoice_id, environment, network, address_index, address, token_id,
		amount_usd, amount_units, rate, expires_at FROM payment_addresses WHERE invoice_id = $1 AND network = $2`, invoiceID, network).
		Scan(&a.InvoiceID, &env, &a.Network, &index, &a.Address, &a.TokenID, &usd, &units, &rt, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: payment address: %w", err)
	}
	var ok1, ok2 bool
	a.AmountUnits, ok1 = new(big.Int).SetString(units, 10)
	a.USDPerToken, ok2 = new(big.Rat).SetString(rt)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("store: payment address of %s: bad quote %q at %q", invoiceID, units, rt)
	}
	a.Environment, a.Index, a.ExpiresAt, a.AmountUSD = kassa.Environment(env), uint32(index), fromMicros(expires), kassa.Millis(usd)
	return &a, nil
}

// newPaymentAddress derives and stores the invoice's address on the token's network.
func (db *DB) newPaymentAddress(ctx context.Context, tx txq, inv *kassa.Invoice, req payment.PaymentAddressRequest, now time.Time) (*payment.Address, error) {
	seq, err := db.nextQuoteSeq(ctx, tx, inv.Environment, req.Token.Network)
	if err != nil {
		return nil, err
	}
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(address_index), -1) + 1 FROM payment_addresses
		WHERE environment = $1 AND network = $2`, string(inv.Environment), req.Token.Network).Scan(&next); err != nil {
		return nil, fmt.Errorf("store: next address index: %w", err)
	}
	address, err := req.Derive(uint32(next))
	if err != nil {
		return nil, err
	}
	a := &payment.Address{InvoiceID: inv.ID, Environment: inv.Environment, Network: req.Token.Network,
		Index: uint32(next), Address: address, TokenID: req.Token.ID}
	if err := quote(a, inv, req); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO payment_addresses (invoice_id, environment, network, address_index, address,
		token_id, amount_usd, amount_units, rate, expires_at, created_at, quote_seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		a.InvoiceID, string(a.Environment), a.Network, next, a.Address, a.TokenID, int64(a.AmountUSD), a.AmountUnits.String(),
		a.USDPerToken.String(), micros(a.ExpiresAt), micros(now), seq)
	if err != nil {
		return nil, fmt.Errorf("store: insert payment address: %w", err)
	}
	return a, nil
}

// requote gives an existing address a fresh quote, for another token of its network
// or once the last quote expired.
func (db *DB) requote(ctx context.Context, tx txq, inv *kassa.Invoice, a *payment.Address, req payment.PaymentAddressRequest) error {
	a.TokenID = req.Token.ID
	if err := quote(a, inv, req); err != nil {
		return err
	}
	seq, err := db.nextQuoteSeq(ctx, tx, a.Environment, a.Network)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payment_addresses SET token_id = $1, amount_units = $2, rate = $3,
		expires_at = $4, amount_usd = $5, quote_seq = $6 WHERE invoice_id = $7 AND network = $8`, a.TokenID, a.AmountUnits.String(),
		a.USDPerToken.String(), micros(a.ExpiresAt), int64(a.AmountUSD), seq, a.InvoiceID, a.Network); err != nil {
		return fmt.Errorf("store: requote payment address: %w", err)
	}
	return nil
}

// nextQuoteSeq takes the lock of env and network's deposit addresses for the rest
// of the transaction (an advisory transaction lock on PostgreSQL; SQLite's single
// writer already serializes) and returns the next quote_seq. Under the lock the
// numbers commit in ascending order, which the watcher's incremental read of
// changed quotes relies on (WatchedAddressesSince); the unique index backs it up.
func (db *DB) nextQuoteSeq(ctx context.Context, tx txq, env kassa.Environment, network string) (int64, error) {
	if db.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))",
			"payment_addresses:"+string(env)+":"+network); err != nil {
			return 0, fmt.Errorf("store: lock deposit addresses: %w", err)
		}
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(quote_seq), 0) + 1 FROM payment_addresses
		WHERE environment = $1 AND network = $2`, string(env), network).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: next quote number: %w", err)
	}
	return seq, nil
}

func quote(a *payment.Address, inv *kassa.Invoice, req payment.PaymentAddressRequest) error {
	remaining := inv.AmountRemaining()
	units, rate, expires, err := req.Quote(remaining)
	if err != nil {
		return err
	}
	a.AmountUSD, a.AmountUnits, a.USDPerToken, a.ExpiresAt = remaining, units, rate, expires.UTC().Truncate(time.Microsecond)
	return nil
}
