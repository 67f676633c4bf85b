-- Money moving out on chain: payouts (a sweep of a deposit address's receipts to
-- the merchant, or a commerce refund from the gas wallet) and the outbox of the
-- transactions Kassa signs for them. A transaction is stored with its nonce and
-- its signed bytes before it is broadcast; every signed version (fee bumps) is
-- kept, whichever is mined wins.
CREATE TABLE payouts (
    id          TEXT COLLATE "C" PRIMARY KEY,
    kind        TEXT NOT NULL,
    environment TEXT NOT NULL,
    network     TEXT COLLATE "C" NOT NULL,
    merchant_id BIGINT NOT NULL,
    from_address TEXT COLLATE "C" NOT NULL,
    from_index  BIGINT NOT NULL,
    token_id    BIGINT NOT NULL,
    amount_units TEXT NOT NULL,
    to_address  TEXT COLLATE "C" NOT NULL,
    order_id    TEXT COLLATE "C" UNIQUE,
    status      TEXT NOT NULL,
    topup_tx_id TEXT,
    tx_id       TEXT COLLATE "C",
    attempts    BIGINT NOT NULL DEFAULT 0,
    reason      TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX payouts_open ON payouts (environment, network, status);

CREATE TABLE outbox_txs (
    id           TEXT COLLATE "C" PRIMARY KEY,
    environment  TEXT NOT NULL,
    network      TEXT COLLATE "C" NOT NULL,
    from_address TEXT COLLATE "C" NOT NULL,
    from_index   BIGINT NOT NULL,
    nonce        BIGINT NOT NULL,
    purpose      TEXT NOT NULL,
    payout_id    TEXT COLLATE "C",
    to_address   TEXT COLLATE "C" NOT NULL,
    value_units  TEXT NOT NULL,
    data         TEXT NOT NULL,
    gas_limit    BIGINT NOT NULL,
    status       TEXT NOT NULL,
    mined_hash   TEXT COLLATE "C" NOT NULL DEFAULT '',
    block_number BIGINT NOT NULL DEFAULT 0,
    block_hash   TEXT COLLATE "C" NOT NULL DEFAULT '',
    gas_used     BIGINT NOT NULL DEFAULT 0,
    reason       TEXT NOT NULL DEFAULT '',
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    UNIQUE (network, from_address, nonce)
);
CREATE INDEX outbox_txs_open ON outbox_txs (environment, network, status, block_number);

CREATE TABLE outbox_attempts (
    hash       TEXT COLLATE "C" PRIMARY KEY,
    tx_id      TEXT COLLATE "C" NOT NULL REFERENCES outbox_txs (id),
    raw        TEXT NOT NULL,
    tip        TEXT NOT NULL,
    fee_cap    TEXT NOT NULL,
    signed_at  BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX outbox_attempts_tx ON outbox_attempts (tx_id, created_at);

-- The next nonce of each sending address: one allocator per (network, address).
CREATE TABLE outbox_nonces (
    network TEXT COLLATE "C" NOT NULL,
    address TEXT COLLATE "C" NOT NULL,
    next    BIGINT NOT NULL,
    PRIMARY KEY (network, address)
);

-- A receipt settling on chain belongs to one sweep.
ALTER TABLE receipts ADD COLUMN payout_id TEXT COLLATE "C";
CREATE INDEX receipts_payout ON receipts (payout_id);
-- An order owed a refund that no payout pays yet.
ALTER TABLE orders ADD COLUMN refund_due BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX orders_refund_due ON orders (environment, refund_due);
