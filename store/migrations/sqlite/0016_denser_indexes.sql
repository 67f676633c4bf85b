-- Issue 17: fewer and denser indexes on the invoice create path
-- (docs/performance.md, "Storage and memory (issue 17)").

-- Newest-first lists read ascending indexes backwards. Declared DESC, these indexes
-- took every new invoice at their left end, where page splits left pages half empty.
DROP INDEX invoices_merchant_list;
CREATE INDEX invoices_merchant_list ON invoices (merchant_id, created_at, id);
DROP INDEX invoices_merchant_env_search;
CREATE INDEX invoices_merchant_env_search ON invoices (merchant_id, environment, created_at, id,
    status, expires_at, amount_pending, customer_id, description);

-- Only invoices that have a customer can be found by customer: the others are left
-- out of the index (a filter customer_id = X implies customer_id IS NOT NULL).
DROP INDEX invoices_merchant_customer;
CREATE INDEX invoices_merchant_customer ON invoices (merchant_id, customer_id, created_at, id)
    WHERE customer_id IS NOT NULL;

-- Every query of one merchant's events names the environment too, and uses
-- events_merchant_env_seq.
DROP INDEX events_merchant_seq;
