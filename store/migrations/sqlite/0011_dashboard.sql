-- Dashboard sign-ins, server-side: the browser holds the token, the store its
-- SHA-256 hash. Times are unix microseconds.
CREATE TABLE dashboard_sessions (
    token_hash  BLOB PRIMARY KEY,
    merchant_id INTEGER NOT NULL REFERENCES merchants (id),
    environment TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX dashboard_sessions_merchant ON dashboard_sessions (merchant_id);

-- The dashboard's search box finds an invoice by its deposit address or a payment's
-- transaction hash.
CREATE INDEX payment_addresses_address ON payment_addresses (address);
CREATE INDEX receipts_tx_hash ON receipts (tx_hash);
