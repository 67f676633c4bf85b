-- A dashboard session ends after 30 minutes without a request (its idle timeout,
-- kassa.DashboardIdleTimeout): last_seen_at is its last request, written at most
-- once a minute. Sessions signed in before this start from their sign-in.
ALTER TABLE dashboard_sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
UPDATE dashboard_sessions SET last_seen_at = created_at;
