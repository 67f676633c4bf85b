-- Payments: the token an invoice is locked to, and one receipt per transfer,
-- unique by (network, tx_hash, log_index) so no transfer counts twice.
ALTER TABLE invoices ADD COLUMN locked_token_id INTEGER;

CREATE TABLE receipts (
    id                TEXT PRIMARY KEY,
    invoice_id        TEXT NOT NULL REFERENCES invoices (id),
    merchant_id       INTEGER NOT NULL,
    environment       TEXT NOT NULL,
    network           TEXT NOT NULL,
    tx_hash           TEXT NOT NULL,
    log_index         INTEGER NOT NULL,
    token_id          INTEGER NOT NULL,
    from_address      TEXT NOT NULL,
    amount_units      TEXT NOT NULL,
    amount_usd        INTEGER NOT NULL,
    status            TEXT NOT NULL,
    confirmations     INTEGER NOT NULL,
    seen_at           INTEGER NOT NULL,
    confirmed_at      INTEGER,
    settlement_status TEXT NOT NULL,
    UNIQUE (network, tx_hash, log_index)
);
CREATE INDEX receipts_invoice ON receipts (invoice_id, seen_at DESC, id DESC);
