-- Issue 40: PostgreSQL's migration 0029 adds a trigram index for searches of the
-- description. SQLite keeps the scan: an FTS5 trigram index kept by triggers cost
-- SQLite's invoice create 19-71 % more CPU (docs/performance.md, "Tried and not
-- kept"). The version is kept so both engines record the same migrations.
SELECT 1;
