-- The dashboard overview: paid volume per day, failed webhook deliveries in the
-- last 24 hours, and an invoice's deliveries by event.
CREATE INDEX invoices_merchant_paid ON invoices (merchant_id, environment, paid_at) WHERE paid_at IS NOT NULL;
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (merchant_id, environment, updated_at) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
