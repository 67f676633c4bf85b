-- Deposit addresses: one per invoice and network, at a derivation index unique per
-- environment and network, with the quote of the token the payor locked.
CREATE TABLE payment_addresses (
    invoice_id    TEXT NOT NULL REFERENCES invoices (id),
    environment   TEXT NOT NULL,
    network       TEXT NOT NULL,
    address_index INTEGER NOT NULL,
    address       TEXT NOT NULL,
    token_id      INTEGER NOT NULL,
    amount_usd    INTEGER NOT NULL,
    amount_units  TEXT NOT NULL,
    rate          TEXT NOT NULL,
    expires_at    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (invoice_id, network),
    UNIQUE (environment, network, address_index)
);
