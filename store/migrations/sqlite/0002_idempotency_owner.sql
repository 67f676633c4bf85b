-- The claimant of an idempotency key: a token the claiming request picks. Completing
-- or releasing a claim matches it, so a request whose claim was taken over (it ran
-- past the stale limit) can neither overwrite nor delete the new owner's claim.
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT NOT NULL DEFAULT '';
