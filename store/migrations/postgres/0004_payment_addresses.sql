-- Deposit addresses: one per invoice and network, at a derivation index unique per
-- environment and network, with the quote of the token the payor locked.
CREATE TABLE payment_addresses (
    invoice_id    TEXT COLLATE "C" NOT NULL REFERENCES invoices (id),
    environment   TEXT NOT NULL,
    network       TEXT COLLATE "C" NOT NULL,
    address_index BIGINT NOT NULL,
    address       TEXT NOT NULL,
    token_id      BIGINT NOT NULL,
    amount_usd    BIGINT NOT NULL,
    amount_units  TEXT NOT NULL,
    rate          TEXT NOT NULL,
    expires_at    BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (invoice_id, network),
    UNIQUE (environment, network, address_index)
);
