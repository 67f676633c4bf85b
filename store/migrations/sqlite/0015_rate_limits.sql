-- Rate limits shared by instances on one database (see the PostgreSQL migration).
-- SQLite serves one instance, which keeps its buckets in memory; the table is here
-- so both engines have the same schema and store code.
CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tat BIGINT NOT NULL
);
