-- Chain watching. A receipt knows the block its transfer was last seen in:
-- block_number 0 is none (a simulated payment); block_hash is '' once that block
-- left the canonical chain (a reorganisation), until the transfer is seen in a
-- canonical block again.
ALTER TABLE receipts ADD COLUMN block_number BIGINT NOT NULL DEFAULT 0;
ALTER TABLE receipts ADD COLUMN block_hash TEXT COLLATE "C" NOT NULL DEFAULT '';
-- A network's pending receipts: confirmations still counted, lost ones abandoned.
CREATE INDEX receipts_chain_pending ON receipts (network, block_number) WHERE status = 'pending';
-- A network's receipts in canonical blocks above a height: what a reorganisation detaches.
CREATE INDEX receipts_chain_block ON receipts (network, block_number) WHERE block_hash <> '';

-- Invoices still watched after their expiry (WatchedAddresses). Deposit addresses
-- by (environment, network) are served by their unique index on
-- (environment, network, address_index).
CREATE INDEX invoices_expiry ON invoices (expires_at);

-- How far each network's watcher got: the last block it processed completely, on
-- the chain whose first block is genesis.
CREATE TABLE chain_cursors (
    network    TEXT COLLATE "C" PRIMARY KEY,
    genesis    TEXT COLLATE "C" NOT NULL,
    number     BIGINT NOT NULL,
    hash       TEXT COLLATE "C" NOT NULL,
    parent     TEXT COLLATE "C" NOT NULL,
    updated_at BIGINT NOT NULL
);

-- The recent blocks of each network, checked by hash against their parents.
CREATE TABLE chain_blocks (
    network TEXT COLLATE "C" NOT NULL,
    number  BIGINT NOT NULL,
    hash    TEXT COLLATE "C" NOT NULL,
    parent  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (network, number)
);

-- Named, expiring leases: one instance of several does a job (watching a network).
CREATE TABLE leases (
    name       TEXT COLLATE "C" PRIMARY KEY,
    holder     TEXT COLLATE "C" NOT NULL,
    expires_at BIGINT NOT NULL
);
