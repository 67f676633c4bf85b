-- The chain watcher keeps its set of deposit addresses in memory and reads only
-- what changed since its last read (decisions.md, "Chain watching"): quote_seq
-- numbers an address's latest quote, new address or requote, per environment and
-- network, allocated under the same lock as address_index, so the numbers commit
-- in ascending order and "quote_seq above the last one read" misses nothing.
ALTER TABLE payment_addresses ADD COLUMN quote_seq BIGINT NOT NULL DEFAULT 0;
UPDATE payment_addresses SET quote_seq = address_index + 1;
CREATE UNIQUE INDEX payment_addresses_quote_seq ON payment_addresses (environment, network, quote_seq);
