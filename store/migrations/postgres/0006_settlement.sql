-- Settlement outcome per receipt: the transaction that paid the merchant, or why not.
ALTER TABLE receipts ADD COLUMN settlement_tx_hash TEXT;
ALTER TABLE receipts ADD COLUMN settlement_reason TEXT;
CREATE INDEX receipts_settlement ON receipts (settlement_status, seen_at);
