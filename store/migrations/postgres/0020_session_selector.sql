-- Issue 17: payment session tokens name their invoice (kassa.NewSessionToken), so
-- the payor API finds a session by the invoice id and compares its hash in the
-- row. New rows keep 48 bytes in session_token_hash (the id, then the SHA-256);
-- only the 32-byte hashes of tokens issued before need an index, to be found by
-- hash until their sessions end. The unique constraint made every create write a
-- random page of a growing index.
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_session_token_hash_key;
CREATE UNIQUE INDEX invoices_session_legacy ON invoices (session_token_hash)
    WHERE length(session_token_hash) = 32;
