-- SQLite drops events_created in its 0019; PostgreSQL keeps it. The hourly prune no
-- longer needs it on either engine (store/eventprune.go walks events by seq), but
-- PostgreSQL's planner, with statistics, reads it for event lists filtered by a
-- narrow created[gte]/created[lte] range, which would otherwise walk all of a
-- merchant's events newest first. SQLite's planner never chose it for those lists.
COMMENT ON INDEX events_created IS 'read by event lists filtered on created (PostgreSQL); not by the prune';
