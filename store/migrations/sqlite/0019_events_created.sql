-- events_created had two readers: the hourly prune of events past their retention,
-- which now walks events by seq (store/eventprune.go), and event lists filtered by
-- created[gte]/created[lte], for which SQLite's planner reads the merchant's events by
-- seq (events_merchant_env_seq) and never this index. Every create wrote an entry to
-- it (issue 17: one index insert fewer per create). PostgreSQL keeps it (its 0019).
DROP INDEX events_created;
