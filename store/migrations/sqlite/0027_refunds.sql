-- Refunds of any invoice (decisions.md, "Refunds, and money that needs a person"):
-- money sent back on chain in the token and network it came in. A refund
-- counts against what is refundable until it is failed or canceled; its payout
-- (payouts.refund_id) pays it with the settlement executor's guarantees. The
-- claim link's token is kept only as its SHA-256 (claim_hash).
CREATE TABLE refunds (
    id             TEXT PRIMARY KEY,
    invoice_id     TEXT NOT NULL,
    payment_id     TEXT NOT NULL DEFAULT '',
    merchant_id    INTEGER NOT NULL,
    environment    TEXT NOT NULL,
    status         TEXT NOT NULL,
    amount_usd     INTEGER NOT NULL,
    rate           TEXT NOT NULL,
    network        TEXT NOT NULL,
    token_id       INTEGER NOT NULL,
    token_symbol   TEXT NOT NULL,
    decimals       INTEGER NOT NULL,
    amount_units   TEXT NOT NULL,
    address        TEXT NOT NULL DEFAULT '',
    claim_hash     BLOB,
    claim_expires_at INTEGER,
    tx_hash        TEXT NOT NULL DEFAULT '',
    reason         TEXT NOT NULL DEFAULT '',
    failure_reason TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    sent_at        INTEGER,
    confirmed_at   INTEGER
);
CREATE INDEX refunds_invoice ON refunds (invoice_id, created_at);
CREATE INDEX refunds_open ON refunds (environment, network, status);
ALTER TABLE payouts ADD COLUMN refund_id TEXT;
CREATE UNIQUE INDEX payouts_refund ON payouts (refund_id);
-- What the invoice's confirmed refunds paid back, usd_millis.
ALTER TABLE invoices ADD COLUMN amount_refunded INTEGER NOT NULL DEFAULT 0;
