-- PostgreSQL's 0022 adds kassa_check, a check its create writer runs inside a
-- transaction sent in one round trip. SQLite's writer runs in the process, between
-- its statements, and needs none; this file keeps the two engines' versions alike.
SELECT 1;
