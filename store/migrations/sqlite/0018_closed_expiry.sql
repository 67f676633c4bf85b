-- invoices_expiry had one reader: the closed half of WatchedAddresses
-- (store/chainwatch.go), which reads only invoices that are no longer open (paid,
-- expired, canceled) and expired less than a day ago. Holding only those, the index
-- is written when an invoice closes instead of at every create (issue 17: one index
-- insert fewer per create); open invoices stay in invoices_open_expiry.
DROP INDEX invoices_expiry;
CREATE INDEX invoices_closed_expiry ON invoices (expires_at) WHERE status NOT IN ('unpaid', 'underpaid');
