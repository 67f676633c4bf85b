-- Issue 17: the create writer sends a batch of invoice creates to PostgreSQL in one
-- round trip, its COMMIT included, so the checks it made in Go between two round
-- trips run inside the transaction instead: kassa_check raises an error with the
-- given SQLSTATE when ok is false, which aborts the transaction: PostgreSQL skips
-- the rest of the pipeline, COMMIT included, and the writer rolls it back. Used
-- for a live idempotency record under a key of the batch (KA002) and for webhook
-- endpoints changed since the writer last read them (KA001): see
-- store/pgendpoints.go.
CREATE FUNCTION kassa_check(ok boolean, code text, message text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT ok THEN
        RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
    END IF;
END
$$;
