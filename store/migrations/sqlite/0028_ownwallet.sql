-- A refund the merchant pays from their own wallet (decisions.md, "Refunds
-- (issue 39)"): paid_by 'merchant' withdraws it from the payout executor; the
-- chain watcher looks for its transfer from block watch_from on, and records the
-- block and log index of the one it took (seen_*), so that one transfer pays one
-- refund only and a reorganisation can give it back.
ALTER TABLE refunds ADD COLUMN paid_by TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN watch_from INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN seen_block_number INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN seen_block_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN seen_log_index INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX refunds_own_transfer ON refunds (network, tx_hash, seen_log_index)
    WHERE paid_by = 'merchant' AND tx_hash <> '';
