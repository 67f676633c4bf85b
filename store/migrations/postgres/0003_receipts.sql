-- Payments: the token an invoice is locked to, and one receipt per transfer,
-- unique by (network, tx_hash, log_index) so no transfer counts twice.
ALTER TABLE invoices ADD COLUMN locked_token_id BIGINT;

CREATE TABLE receipts (
    id                TEXT COLLATE "C" PRIMARY KEY,
    invoice_id        TEXT COLLATE "C" NOT NULL REFERENCES invoices (id),
    merchant_id       BIGINT NOT NULL,
    environment       TEXT NOT NULL,
    network           TEXT COLLATE "C" NOT NULL,
    tx_hash           TEXT COLLATE "C" NOT NULL,
    log_index         BIGINT NOT NULL,
    token_id          BIGINT NOT NULL,
    from_address      TEXT NOT NULL,
    amount_units      TEXT NOT NULL,
    amount_usd        BIGINT NOT NULL,
    status            TEXT NOT NULL,
    confirmations     INTEGER NOT NULL,
    seen_at           BIGINT NOT NULL,
    confirmed_at      BIGINT,
    settlement_status TEXT NOT NULL,
    UNIQUE (network, tx_hash, log_index)
);
CREATE INDEX receipts_invoice ON receipts (invoice_id, seen_at DESC, id DESC);
