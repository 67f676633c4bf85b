-- SQLite drops idempotency_keys_created in its 0021 and prunes records by rowid;
-- PostgreSQL has no rowid order to walk (a heap reuses free space), so it keeps the
-- index its prune reads.
COMMENT ON INDEX idempotency_keys_created IS 'read by the hourly prune of idempotency records (PostgreSQL only)';
