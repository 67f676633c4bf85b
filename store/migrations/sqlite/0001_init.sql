-- Kassa schema, SQLite dialect. Timestamps are INTEGER unix microseconds; booleans
-- are INTEGER 0/1.

CREATE TABLE merchants (
    id                            INTEGER PRIMARY KEY AUTOINCREMENT,
    name                          TEXT NOT NULL,
    email                         TEXT NOT NULL UNIQUE,
    password_hash                 TEXT NOT NULL,
    company_name                  TEXT NOT NULL,
    default_return_url            TEXT,
    settlement                    TEXT NOT NULL DEFAULT '{}',
    underpayment_tolerance_millis INTEGER NOT NULL DEFAULT 0,
    mainnet_enabled               INTEGER NOT NULL DEFAULT 0,
    created_at                    INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    merchant_id    INTEGER NOT NULL REFERENCES merchants (id),
    name           TEXT NOT NULL,
    scope          TEXT NOT NULL,
    environment    TEXT NOT NULL,
    prefix         TEXT NOT NULL UNIQUE,
    secret_hash    BLOB NOT NULL,
    expires_at     INTEGER,
    last_used_at   INTEGER,
    created_at     INTEGER NOT NULL,
    revoked_at     INTEGER,
    revoked_reason TEXT
);
CREATE INDEX api_keys_merchant_list ON api_keys (merchant_id, created_at DESC, id DESC);

CREATE TABLE invoices (
    id                         TEXT PRIMARY KEY,
    merchant_id                INTEGER NOT NULL REFERENCES merchants (id),
    environment                TEXT NOT NULL,
    status                     TEXT NOT NULL,
    invoice_type               TEXT NOT NULL,
    currency                   TEXT NOT NULL,
    amount                     INTEGER NOT NULL,
    amount_paid                INTEGER NOT NULL DEFAULT 0,
    amount_pending             INTEGER NOT NULL DEFAULT 0,
    description                TEXT,
    customer_id                TEXT,
    customer_email             TEXT,
    invoice_title              TEXT NOT NULL,
    invoice_footer             TEXT NOT NULL,
    payment_return_url         TEXT,
    payment_return_url_enabled INTEGER NOT NULL,
    receiver_override_enabled  INTEGER NOT NULL,
    receiver_override_address  TEXT,
    questions                  TEXT,
    metadata                   TEXT NOT NULL,
    payer_wallet_address       TEXT,
    payer_wallet_network       TEXT,
    commerce_order_id          TEXT,
    session_token_hash         BLOB NOT NULL UNIQUE,
    expires_at                 INTEGER NOT NULL,
    created_at                 INTEGER NOT NULL,
    paid_at                    INTEGER,
    last_payment_at            INTEGER,
    canceled_at                INTEGER
);
CREATE INDEX invoices_merchant_list ON invoices (merchant_id, created_at DESC, id DESC);
CREATE INDEX invoices_merchant_customer ON invoices (merchant_id, customer_id, created_at DESC, id DESC);
CREATE INDEX invoices_commerce_order ON invoices (commerce_order_id) WHERE commerce_order_id IS NOT NULL;
CREATE INDEX invoices_open_expiry ON invoices (expires_at) WHERE status IN ('unpaid', 'underpaid');

-- The outbox: every change writes its event in the same transaction.
CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    merchant_id INTEGER NOT NULL REFERENCES merchants (id),
    environment TEXT NOT NULL,
    type        TEXT NOT NULL,
    object_id   TEXT,
    created_at  INTEGER NOT NULL,
    data        TEXT NOT NULL
);
CREATE INDEX events_merchant_seq ON events (merchant_id, seq);
CREATE INDEX events_object ON events (object_id, seq) WHERE object_id IS NOT NULL;
CREATE INDEX events_created ON events (created_at);

CREATE TABLE idempotency_keys (
    merchant_id     INTEGER NOT NULL,
    environment     TEXT NOT NULL,
    route           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    status_code     INTEGER NOT NULL DEFAULT 0,
    body            BLOB,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, environment, route, idempotency_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
