-- The dashboard's optional TOTP second factor: the merchant's secret (base32; kept
-- as webhook secrets are until issue 15 seals secrets at rest) and the last time
-- step a code was accepted for, so each code signs in once. A dashboard session
-- row may be a half sign-in waiting for its code (awaiting_code), and a signed-in
-- one may hold a secret being enrolled (totp_pending).
ALTER TABLE merchants ADD COLUMN totp_secret TEXT;
ALTER TABLE merchants ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dashboard_sessions ADD COLUMN awaiting_code INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dashboard_sessions ADD COLUMN totp_pending TEXT;
