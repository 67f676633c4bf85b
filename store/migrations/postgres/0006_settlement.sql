-- Settlement outcome per receipt: the transaction that paid the merchant, or why not.
ALTER TABLE receipts ADD COLUMN settlement_tx_hash TEXT;
ALTER TABLE receipts ADD COLUMN settlement_reason TEXT;
-- When a worker claimed the receipt; a claim older than the lease is taken again.
ALTER TABLE receipts ADD COLUMN settlement_claimed_at BIGINT;
CREATE INDEX receipts_settlement ON receipts (settlement_status, seen_at);
