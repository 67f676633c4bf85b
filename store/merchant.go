package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"github.com/kassapay/kassa"
)

var _ kassa.MerchantService = (*DB)(nil)

const merchantColumns = `id, name, email, company_name, default_return_url, settlement,
	underpayment_tolerance_millis, mainnet_enabled, created_at, credential_version`

func scanMerchant(s scanner) (*kassa.Merchant, error) {
	var (
		m          kassa.Merchant
		returnURL  sql.Null[string]
		settlement string
		tolerance  int64
		created    int64
	)
	if err := s.Scan(&m.ID, &m.Name, &m.Email, &m.CompanyName, &returnURL, &settlement,
		&tolerance, &m.MainnetEnabled, &created, &m.CredentialVersion); err != nil {
		return nil, err
	}
	m.DefaultReturnURL = stringOrNil(returnURL)
	m.UnderpaymentToleranceMillis = kassa.Millis(tolerance)
	m.CreatedAt = fromMicros(created)
	var err error
	if m.Settlement, err = decodeSettlement(settlement); err != nil {
		return nil, fmt.Errorf("store: merchant %d: %w", m.ID, err)
	}
	return &m, nil
}

// decodeSettlement reads the settlement column: targets keyed by environment.
func decodeSettlement(raw string) (map[kassa.Environment]kassa.Settlement, error) {
	out := map[kassa.Environment]kassa.Settlement{}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("settlement: %w", err)
	}
	return out, nil
}

func errEmailTaken() error {
	return &kassa.Error{Kind: kassa.KindConflict, Code: "email_taken", Param: "email",
		Message: "A merchant with this email already exists."}
}

// CreateMerchant stores a new merchant as given (merchants.Service checks it and
// normalises its email) with a bcrypt hash of its password; a taken email is a
// conflict (email_taken). The company name starts as the merchant's name.
func (db *DB) CreateMerchant(ctx context.Context, c kassa.MerchantCreate) (*kassa.Merchant, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(c.Password), db.cost)
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return nil, kassa.Invalidf("password", "invalid_password", "password must be at most 72 bytes.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: hash password: %w", err)
	}
	now := db.clock()
	email := c.Email
	var id int64
	err = db.w.QueryRowContext(ctx, `INSERT INTO merchants
		(name, email, password_hash, company_name, settlement, underpayment_tolerance_millis, mainnet_enabled, created_at)
		VALUES ($1, $2, $3, $4, '{}', 0, $5, $6) RETURNING id`,
		c.Name, email, string(hash), c.Name, c.MainnetEnabled, micros(now)).Scan(&id)
	if isUniqueViolation(err) {
		return nil, errEmailTaken()
	}
	if err != nil {
		return nil, fmt.Errorf("store: create merchant: %w", err)
	}
	return &kassa.Merchant{ID: id, Name: c.Name, Email: email, CompanyName: c.Name,
		Settlement: map[kassa.Environment]kassa.Settlement{}, MainnetEnabled: c.MainnetEnabled, CreatedAt: now,
		CredentialVersion: 1}, nil
}

// Merchant returns a merchant by id.
func (db *DB) Merchant(ctx context.Context, id int64) (*kassa.Merchant, error) {
	return db.merchant(ctx, db.r, id, "")
}

// merchant loads a merchant through q, with an optional locking suffix.
func (db *DB) merchant(ctx context.Context, q queryer, id int64, lock string) (*kassa.Merchant, error) {
	m, err := scanMerchant(q.QueryRowContext(ctx, "SELECT "+merchantColumns+" FROM merchants WHERE id = $1"+lock, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("merchant")
	}
	if err != nil {
		return nil, fmt.Errorf("store: load merchant: %w", err)
	}
	return m, nil
}

// MerchantByEmail finds a merchant by login email, case-insensitively.
func (db *DB) MerchantByEmail(ctx context.Context, email string) (*kassa.Merchant, error) {
	if !storable(email) {
		return nil, kassa.NotFound("merchant")
	}
	m, err := scanMerchant(db.r.QueryRowContext(ctx,
		"SELECT "+merchantColumns+" FROM merchants WHERE email = $1", kassa.NormalizeEmail(email)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("merchant")
	}
	if err != nil {
		return nil, fmt.Errorf("store: load merchant: %w", err)
	}
	return m, nil
}

// UpdateMerchant applies a partial update of the merchant's settings as given
// (merchants.Service checks it), on the locked row; a taken email is a conflict
// (email_taken).
func (db *DB) UpdateMerchant(ctx context.Context, id int64, u kassa.MerchantUpdate) (*kassa.Merchant, error) {
	var out *kassa.Merchant
	err := db.tx(ctx, func(tx txq) error {
		m, err := db.merchant(ctx, tx, id, db.forUpdate())
		if err != nil {
			return err
		}
		if u.Name != nil {
			m.Name = *u.Name
		}
		if u.Email != nil {
			m.Email = *u.Email
		}
		if u.CompanyName != nil {
			m.CompanyName = *u.CompanyName
		}
		if u.DefaultReturnURL != nil {
			if *u.DefaultReturnURL == "" {
				m.DefaultReturnURL = nil
			} else {
				v := *u.DefaultReturnURL
				m.DefaultReturnURL = &v
			}
		}
		for env, s := range u.Settlement {
			if s == nil {
				delete(m.Settlement, env)
			} else {
				m.Settlement[env] = *s
			}
		}
		if u.UnderpaymentToleranceMillis != nil {
			m.UnderpaymentToleranceMillis = *u.UnderpaymentToleranceMillis
		}
		settlement, err := json.Marshal(m.Settlement)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE merchants SET company_name = $1, default_return_url = $2,
			settlement = $3, underpayment_tolerance_millis = $4, name = $5, email = $6 WHERE id = $7`,
			m.CompanyName, nullString(m.DefaultReturnURL), string(settlement), int64(m.UnderpaymentToleranceMillis),
			m.Name, m.Email, id); err != nil {
			if isUniqueViolation(err) {
				return errEmailTaken()
			}
			return fmt.Errorf("store: update merchant: %w", err)
		}
		out = m
		return nil
	})
	db.merchants.forget(id) // after the commit: see merchantCache.put
	return out, err
}

// EnableMainnet grants the merchant access to mainnet.
func (db *DB) EnableMainnet(ctx context.Context, id int64) (*kassa.Merchant, error) {
	res, err := db.w.ExecContext(ctx, "UPDATE merchants SET mainnet_enabled = $1 WHERE id = $2", true, id)
	db.merchants.forget(id)
	if err != nil {
		return nil, fmt.Errorf("store: enable mainnet: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, fmt.Errorf("store: enable mainnet: %w", err)
	} else if n == 0 {
		return nil, kassa.NotFound("merchant")
	}
	return db.merchant(ctx, db.w, id, "")
}

func errInvalidCredentials() error {
	return &kassa.Error{Kind: kassa.KindUnauthenticated, Code: "invalid_credentials", Message: "Invalid email or password."}
}

// Login checks an email and password. An unknown email still costs one bcrypt
// comparison (against a dummy hash), so timing does not tell which part was wrong.
// The merchant's CredentialVersion is the one read with the hash, not a later
// one: a password or two-step change that lands while bcrypt runs leaves what
// the caller mints with it (a JWT, a session, a half sign-in) already stale.
func (db *DB) Login(ctx context.Context, email, password string) (*kassa.Merchant, error) {
	var (
		id, version int64
		hash        string
	)
	err := sql.ErrNoRows
	if storable(email) {
		err = db.r.QueryRowContext(ctx, "SELECT id, password_hash, credential_version FROM merchants WHERE email = $1",
			kassa.NormalizeEmail(email)).Scan(&id, &hash, &version)
	}
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(db.dummyPasswordHash(), []byte(password))
		return nil, errInvalidCredentials()
	}
	if err != nil {
		return nil, fmt.Errorf("store: login: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, errInvalidCredentials()
	}
	if db.afterPasswordCheck != nil {
		db.afterPasswordCheck()
	}
	m, err := db.Merchant(ctx, id)
	if err != nil {
		return nil, err
	}
	m.CredentialVersion = version
	return m, nil
}

// ChangePassword replaces the merchant's password hash and bumps its credential
// version (ending its dashboard tokens and sessions), in one transaction.
func (db *DB) ChangePassword(ctx context.Context, merchantID int64, current, next string) error {
	if err := kassa.CheckPassword("new_password", next); err != nil {
		return err
	}
	var hash string
	err := db.r.QueryRowContext(ctx, "SELECT password_hash FROM merchants WHERE id = $1", merchantID).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return kassa.NotFound("merchant")
	}
	if err != nil {
		return fmt.Errorf("store: change password: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(current)) != nil {
		return errInvalidCredentials()
	}
	fresh, err := bcrypt.GenerateFromPassword([]byte(next), db.cost)
	if err != nil {
		return fmt.Errorf("store: change password: %w", err)
	}
	err = db.tx(ctx, func(tx txq) error {
		if _, err := tx.ExecContext(ctx, "UPDATE merchants SET password_hash = $1 WHERE id = $2", string(fresh), merchantID); err != nil {
			return fmt.Errorf("store: change password: %w", err)
		}
		return bumpCredentials(ctx, tx, merchantID)
	})
	db.merchants.forget(merchantID)
	return err
}

// SignOutEverywhere bumps the merchant's credential version.
func (db *DB) SignOutEverywhere(ctx context.Context, merchantID int64) error {
	err := db.tx(ctx, func(tx txq) error { return bumpCredentials(ctx, tx, merchantID) })
	db.merchants.forget(merchantID)
	return err
}

// bumpCredentials moves the merchant's credential version on, so every dashboard
// token carrying the old one is refused (each JWT request reads the row, on
// whichever instance), and deletes its dashboard sessions and half sign-ins
// (which a session read also checks against the version).
func bumpCredentials(ctx context.Context, q queryer, merchantID int64) error {
	res, err := q.ExecContext(ctx, "UPDATE merchants SET credential_version = credential_version + 1 WHERE id = $1", merchantID)
	if err != nil {
		return fmt.Errorf("store: bump credential version: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: bump credential version: %w", err)
	} else if n == 0 {
		return kassa.NotFound("merchant")
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM dashboard_sessions WHERE merchant_id = $1", merchantID); err != nil {
		return fmt.Errorf("store: bump credential version: %w", err)
	}
	return nil
}

// dummyPasswordHash is a hash at the configured cost that no password matches.
func (db *DB) dummyPasswordHash() []byte {
	db.dummyOnce.Do(func() {
		h, err := bcrypt.GenerateFromPassword([]byte(kassa.RandomBase32(16)), db.cost)
		if err == nil {
			db.dummyHash = h
		}
	})
	return db.dummyHash
}
