-- idempotency_keys_created had one reader: the hourly prune of records past their
-- 24 hours, which on SQLite now walks the table by rowid (store/eventprune.go), the
-- order records are inserted in. Every create wrote an entry to it, in the single
-- writer (issue 17: one index insert fewer per create). PostgreSQL keeps it (its 0021).
DROP INDEX idempotency_keys_created;
