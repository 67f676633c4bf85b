-- Money moving out on chain: payouts (a sweep of a deposit address's receipts to
-- the merchant, or a commerce refund from the gas wallet) and the outbox of the
-- transactions Kassa signs for them. A transaction is stored with its nonce and
-- its signed bytes before it is broadcast; every signed version (fee bumps) is
-- kept, whichever is mined wins.
CREATE TABLE payouts (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    environment TEXT NOT NULL,
    network     TEXT NOT NULL,
    merchant_id INTEGER NOT NULL,
    from_address TEXT NOT NULL,
    from_index  INTEGER NOT NULL,
    token_id    INTEGER NOT NULL,
    amount_units TEXT NOT NULL,
    to_address  TEXT NOT NULL,
    order_id    TEXT UNIQUE,
    status      TEXT NOT NULL,
    topup_tx_id TEXT,
    tx_id       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    reason      TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX payouts_open ON payouts (environment, network, status);

CREATE TABLE outbox_txs (
    id           TEXT PRIMARY KEY,
    environment  TEXT NOT NULL,
    network      TEXT NOT NULL,
    from_address TEXT NOT NULL,
    from_index   INTEGER NOT NULL,
    nonce        INTEGER NOT NULL,
    purpose      TEXT NOT NULL,
    payout_id    TEXT,
    to_address   TEXT NOT NULL,
    value_units  TEXT NOT NULL,
    data         TEXT NOT NULL,
    gas_limit    INTEGER NOT NULL,
    status       TEXT NOT NULL,
    mined_hash   TEXT NOT NULL DEFAULT '',
    block_number INTEGER NOT NULL DEFAULT 0,
    block_hash   TEXT NOT NULL DEFAULT '',
    gas_used     INTEGER NOT NULL DEFAULT 0,
    reason       TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    UNIQUE (network, from_address, nonce)
);
CREATE INDEX outbox_txs_open ON outbox_txs (environment, network, status, block_number);

CREATE TABLE outbox_attempts (
    hash       TEXT PRIMARY KEY,
    tx_id      TEXT NOT NULL REFERENCES outbox_txs (id),
    raw        TEXT NOT NULL,
    tip        TEXT NOT NULL,
    fee_cap    TEXT NOT NULL,
    signed_at  INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX outbox_attempts_tx ON outbox_attempts (tx_id, created_at);

-- The next nonce of each sending address: one allocator per (network, address).
CREATE TABLE outbox_nonces (
    network TEXT NOT NULL,
    address TEXT NOT NULL,
    next    INTEGER NOT NULL,
    PRIMARY KEY (network, address)
);

-- A receipt settling on chain belongs to one sweep.
ALTER TABLE receipts ADD COLUMN payout_id TEXT;
CREATE INDEX receipts_payout ON receipts (payout_id);
-- An order owed a refund that no payout pays yet.
ALTER TABLE orders ADD COLUMN refund_due BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX orders_refund_due ON orders (environment, refund_due);
