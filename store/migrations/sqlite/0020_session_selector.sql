-- Issue 17: payment session tokens name their invoice (kassa.NewSessionToken). New
-- rows keep the id's 16 bytes, then the token's SHA-256, in session_token_hash, so
-- they enter the column's unique index (an automatic index, which SQLite cannot
-- drop without rebuilding the table) at its right edge, in id order, instead of
-- on a random page. PostgreSQL's 0020 narrows its index to the tokens from before;
-- here nothing changes but what new rows store.
SELECT 1;
