-- The feed order of events: the writing transaction's id, then seq. Readers take
-- only events below the oldest transaction still running, so no event can later
-- appear before one a reader has passed (seq alone is not commit order here).
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_feed ON events (tx, seq);
CREATE INDEX events_merchant_feed ON events (merchant_id, environment, tx, seq);
CREATE INDEX events_merchant_env_seq ON events (merchant_id, environment, seq);

CREATE TABLE webhook_endpoints (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    merchant_id           BIGINT NOT NULL REFERENCES merchants (id),
    environment           TEXT NOT NULL,
    url                   TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    enabled_events        TEXT NOT NULL,
    status                TEXT NOT NULL,
    disabled_reason       TEXT,
    secret                TEXT NOT NULL,
    previous_secret       TEXT,
    previous_secret_until BIGINT,
    failing_since         BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, environment, status);

CREATE TABLE webhook_deliveries (
    id              TEXT COLLATE "C" PRIMARY KEY,
    endpoint_id     TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    merchant_id     BIGINT NOT NULL,
    environment     TEXT NOT NULL,
    event_id        TEXT COLLATE "C" NOT NULL,
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    lease           TEXT,
    lease_until     BIGINT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
    delivery_id      TEXT COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt          INTEGER NOT NULL,
    attempted_at     BIGINT NOT NULL,
    status_code      INTEGER,
    latency_ms       BIGINT NOT NULL,
    response_excerpt TEXT NOT NULL,
    error            TEXT,
    succeeded        BOOLEAN NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
