-- Rate limits shared by every instance on this database: one row per (bucket,
-- credential), the GCRA "theoretical arrival time" in microseconds since the epoch.
-- A row whose tat has passed is the same as no row (a full bucket), so losing the
-- table loses nothing: it is UNLOGGED (no WAL, not replicated, emptied after a
-- crash), which makes each request's update cheap.
CREATE UNLOGGED TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tat BIGINT NOT NULL
);
