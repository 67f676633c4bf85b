-- Issue 36. A merchant's credential version: every dashboard JWT carries the one it
-- was issued under and every dashboard session records it; a password change, a
-- two-step change or "sign out everywhere" bumps it, so everything issued before
-- stops working at once, on every instance (each request reads the row). It starts
-- at 1 and tokens issued before this migration carry none, so they end with it.
ALTER TABLE merchants ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE dashboard_sessions ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 1;
-- Wrong codes tried on a half sign-in: at kassa.DashboardCodeTries it is void.
ALTER TABLE dashboard_sessions ADD COLUMN code_failures INTEGER NOT NULL DEFAULT 0;
-- Failed sign-ins per account (SHA-256 of the lower-cased email as typed, known or
-- not, so the table does not tell which emails exist): the failures since the last
-- success and until when the next attempt is held back (unix microseconds).
CREATE TABLE sign_in_failures (
    account    BYTEA PRIMARY KEY,
    failures   INTEGER NOT NULL,
    held_until BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
