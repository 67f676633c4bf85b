-- Issue 40: SQLite's migration 0032 adds an FTS5 trigram index of descriptions,
-- filled in batches off the create path. PostgreSQL has its trigram index since
-- 0029; the version is kept so both engines record the same migrations.
SELECT 1;
