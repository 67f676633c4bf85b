package store

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
)

// Secrets that grant access are sealed at rest (package sealed) under the keyring
// of Config.Secrets, each bound to its table, column and row. A value in clear (a
// row from before sealing, or written by an older instance during an upgrade) is
// read as is until SealSecrets seals it.

// secretColumn is one column holding sealed secrets, its row key, and the
// environment the row belongs to (an SQL expression; ” when the row has none).
type secretColumn struct {
	table, key, column, env string
}

// secretColumns are every column SealSecrets keeps sealed under the current key.
var secretColumns = []secretColumn{
	{"webhook_endpoints", "id", "secret", "environment"},
	{"webhook_endpoints", "id", "previous_secret", "environment"},
	{"merchants", "id", "totp_secret", "''"},
	{"dashboard_sessions", "token_hash", "totp_pending", "environment"},
}

// place names where a sealed value lives: what its additional data binds it to.
func place(table, column string, key any) string {
	if b, ok := key.([]byte); ok {
		key = hex.EncodeToString(b)
	}
	return fmt.Sprintf("%s.%s:%v", table, column, key)
}

// errNoSecretsKey is returned when a secret is to be sealed or opened by a store
// opened without Config.Secrets.
var errNoSecretsKey = errors.New("store: no secrets key (Config.Secrets) to seal or open secrets with")

// seal seals plain for its place; "" stays "".
func (db *DB) seal(plain, table, column string, key any) (string, error) {
	if plain == "" {
		return "", nil
	}
	if db.secrets == nil {
		return "", errNoSecretsKey
	}
	return db.secrets.Seal(plain, place(table, column, key)), nil
}

// open returns the secret value holds: opened when sealed, as is when in clear.
func (db *DB) open(value, table, column string, key any) (string, error) {
	if !sealed.IsSealed(value) {
		return value, nil
	}
	if db.secrets == nil {
		return "", errNoSecretsKey
	}
	return db.secrets.Open(value, place(table, column, key))
}

// UnreadableSecret is a stored secret the keyring cannot open.
type UnreadableSecret struct {
	// Place is the table, column and row id ("webhook_endpoints.secret:we_…").
	Place string
	// Environment is the row's environment; "" for a merchant's second factor.
	Environment kassa.Environment
	// Err says why: sealed.ErrUnknownKey or sealed.ErrCorrupt, wrapped.
	Err error
}

// SecretsPass is what SealSecrets did.
type SecretsPass struct {
	// Sealed counts the values it sealed: in clear before, or under an older key of
	// the keyring (a rotation).
	Sealed int
	// Kept counts the values already sealed under the current key (each opened).
	Kept int
	// Unreadable lists the values it could not open; they are left as they are.
	Unreadable []UnreadableSecret
}

// SealSecrets brings every stored secret under the keyring's current key: values
// in clear are sealed (the one-way migration serve runs at every start, after the
// SQL migrations), values under another key of the keyring re-sealed (kassa
// secrets rotate), and values under the current key opened to check them. Each
// value is rewritten only if it has not changed meanwhile, so the pass is
// idempotent, may run on several instances at once, and may be re-run when
// interrupted.
func (db *DB) SealSecrets(ctx context.Context) (SecretsPass, error) {
	var pass SecretsPass
	if db.secrets == nil {
		return pass, errNoSecretsKey
	}
	for _, c := range secretColumns {
		if err := db.sealColumn(ctx, c, &pass); err != nil {
			return pass, fmt.Errorf("store: seal %s.%s: %w", c.table, c.column, err)
		}
	}
	return pass, nil
}

// storedSecret is one row's value in a secret column.
type storedSecret struct {
	key   any
	value string
	env   string
}

// sealColumn runs SealSecrets over one column.
func (db *DB) sealColumn(ctx context.Context, c secretColumn, pass *SecretsPass) error {
	rows, err := db.r.QueryContext(ctx, fmt.Sprintf("SELECT %s, %s, %s FROM %s WHERE %s IS NOT NULL",
		c.key, c.column, c.env, c.table, c.column))
	if err != nil {
		return err
	}
	var all []storedSecret
	for rows.Next() {
		var s storedSecret
		if err := rows.Scan(&s.key, &s.value, &s.env); err != nil {
			rows.Close()
			return err
		}
		all = append(all, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range all {
		plain, err := db.open(s.value, c.table, c.column, s.key)
		if err != nil {
			pass.Unreadable = append(pass.Unreadable, UnreadableSecret{
				Place: place(c.table, c.column, s.key), Environment: kassa.Environment(s.env), Err: err})
			continue
		}
		if id, ok := sealed.KeyID(s.value); ok && id == db.secrets.CurrentID() {
			pass.Kept++
			continue
		}
		next, err := db.seal(plain, c.table, c.column, s.key)
		if err != nil {
			return err
		}
		err = db.write(ctx, func(q queryer) error {
			_, err := q.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = $1 WHERE %s = $2 AND %s = $3",
				c.table, c.column, c.key, c.column), next, s.key, s.value)
			return err
		})
		if err != nil {
			return err
		}
		pass.Sealed++
	}
	return nil
}
