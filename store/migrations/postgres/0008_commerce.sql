-- Commerce: checkout estimates and addresses (short-lived), and orders. The order
-- is stored as one JSON document (its snapshot); the columns beside it are what
-- lists, lookups and the placement worker filter on.
CREATE TABLE checkout_estimates (
    id          TEXT COLLATE "C" PRIMARY KEY,
    merchant_id BIGINT NOT NULL REFERENCES merchants (id),
    environment TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX checkout_estimates_expiry ON checkout_estimates (expires_at);

CREATE TABLE checkout_addresses (
    id          TEXT COLLATE "C" PRIMARY KEY,
    merchant_id BIGINT NOT NULL REFERENCES merchants (id),
    environment TEXT NOT NULL,
    estimate_id TEXT COLLATE "C" NOT NULL,
    data        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX checkout_addresses_created ON checkout_addresses (created_at);

CREATE TABLE orders (
    id             TEXT COLLATE "C" PRIMARY KEY,
    merchant_id    BIGINT NOT NULL REFERENCES merchants (id),
    environment    TEXT NOT NULL,
    invoice_id     TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES invoices (id),
    status         TEXT NOT NULL,
    customer_id    TEXT COLLATE "C",
    wallet_address TEXT COLLATE "C",
    data           TEXT NOT NULL,
    lease_until    BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX orders_merchant ON orders (merchant_id, created_at, id);
CREATE INDEX orders_customer ON orders (merchant_id, customer_id, created_at, id);
CREATE INDEX orders_wallet ON orders (merchant_id, wallet_address, created_at, id);
CREATE INDEX orders_to_place ON orders (environment, status, lease_until);
