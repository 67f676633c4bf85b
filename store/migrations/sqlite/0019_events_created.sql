-- events_created had one reader: the hourly prune of events past their retention,
-- which now walks events by seq (store/eventprune.go). Every create wrote an entry
-- to it (issue 17: one index insert fewer per create). Lists of events filtered by
-- created[gte]/created[lte] read the merchant's events by seq and filter.
DROP INDEX events_created;
