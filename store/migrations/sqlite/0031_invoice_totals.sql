-- Issue 40: the dashboard's totals by status read a rollup instead of every
-- invoice (docs/performance.md, "The store at size"; decisions.md, "Invoice
-- totals"). invoice_totals holds, per merchant, environment, UTC day of
-- created_at, stored status and open_hour, how many invoices there are and their
-- summed amount and amount_paid. open_hour is the hour (unix microseconds /
-- 3,600,000,000) in which an open invoice with nothing pending expires, and -1 for
-- every other invoice: a read takes the hours before the current one as expired
-- and reads the invoices of the current hour from invoices_open_expiry.
-- The triggers keep it in the transaction of every write to invoices.
CREATE TABLE invoice_totals (
    merchant_id INTEGER NOT NULL,
    environment TEXT NOT NULL,
    day         INTEGER NOT NULL,
    status      TEXT NOT NULL,
    open_hour   INTEGER NOT NULL,
    invoices    INTEGER NOT NULL,
    amount      INTEGER NOT NULL,
    amount_paid INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, environment, day, status, open_hour)
) WITHOUT ROWID;

INSERT INTO invoice_totals (merchant_id, environment, day, status, open_hour, invoices, amount, amount_paid)
SELECT merchant_id, environment, created_at / 86400000000, status,
    CASE WHEN status IN ('unpaid', 'underpaid') AND amount_pending = 0 THEN expires_at / 3600000000 ELSE -1 END,
    COUNT(*), SUM(amount), SUM(amount_paid)
FROM invoices GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER invoice_totals_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO invoice_totals (merchant_id, environment, day, status, open_hour, invoices, amount, amount_paid)
    VALUES (NEW.merchant_id, NEW.environment, NEW.created_at / 86400000000, NEW.status,
        CASE WHEN NEW.status IN ('unpaid', 'underpaid') AND NEW.amount_pending = 0 THEN NEW.expires_at / 3600000000 ELSE -1 END,
        1, NEW.amount, NEW.amount_paid)
    ON CONFLICT (merchant_id, environment, day, status, open_hour) DO UPDATE SET
        invoices = invoices + 1, amount = amount + excluded.amount, amount_paid = amount_paid + excluded.amount_paid;
END;

CREATE TRIGGER invoice_totals_delete AFTER DELETE ON invoices BEGIN
    UPDATE invoice_totals SET invoices = invoices - 1, amount = amount - OLD.amount, amount_paid = amount_paid - OLD.amount_paid
    WHERE merchant_id = OLD.merchant_id AND environment = OLD.environment AND day = OLD.created_at / 86400000000
        AND status = OLD.status
        AND open_hour = CASE WHEN OLD.status IN ('unpaid', 'underpaid') AND OLD.amount_pending = 0 THEN OLD.expires_at / 3600000000 ELSE -1 END;
    DELETE FROM invoice_totals
    WHERE merchant_id = OLD.merchant_id AND environment = OLD.environment AND day = OLD.created_at / 86400000000
        AND status = OLD.status
        AND open_hour = CASE WHEN OLD.status IN ('unpaid', 'underpaid') AND OLD.amount_pending = 0 THEN OLD.expires_at / 3600000000 ELSE -1 END
        AND invoices = 0;
END;

CREATE TRIGGER invoice_totals_update AFTER UPDATE OF merchant_id, environment, created_at, status, amount, amount_paid,
    amount_pending, expires_at ON invoices
WHEN OLD.merchant_id <> NEW.merchant_id OR OLD.environment <> NEW.environment OR OLD.created_at <> NEW.created_at
    OR OLD.status <> NEW.status OR OLD.amount <> NEW.amount OR OLD.amount_paid <> NEW.amount_paid
    OR (OLD.amount_pending = 0) <> (NEW.amount_pending = 0) OR OLD.expires_at <> NEW.expires_at
BEGIN
    UPDATE invoice_totals SET invoices = invoices - 1, amount = amount - OLD.amount, amount_paid = amount_paid - OLD.amount_paid
    WHERE merchant_id = OLD.merchant_id AND environment = OLD.environment AND day = OLD.created_at / 86400000000
        AND status = OLD.status
        AND open_hour = CASE WHEN OLD.status IN ('unpaid', 'underpaid') AND OLD.amount_pending = 0 THEN OLD.expires_at / 3600000000 ELSE -1 END;
    DELETE FROM invoice_totals
    WHERE merchant_id = OLD.merchant_id AND environment = OLD.environment AND day = OLD.created_at / 86400000000
        AND status = OLD.status
        AND open_hour = CASE WHEN OLD.status IN ('unpaid', 'underpaid') AND OLD.amount_pending = 0 THEN OLD.expires_at / 3600000000 ELSE -1 END
        AND invoices = 0;
    INSERT INTO invoice_totals (merchant_id, environment, day, status, open_hour, invoices, amount, amount_paid)
    VALUES (NEW.merchant_id, NEW.environment, NEW.created_at / 86400000000, NEW.status,
        CASE WHEN NEW.status IN ('unpaid', 'underpaid') AND NEW.amount_pending = 0 THEN NEW.expires_at / 3600000000 ELSE -1 END,
        1, NEW.amount, NEW.amount_paid)
    ON CONFLICT (merchant_id, environment, day, status, open_hour) DO UPDATE SET
        invoices = invoices + 1, amount = amount + excluded.amount, amount_paid = amount_paid + excluded.amount_paid;
END;

-- "Needs attention" counts the underpaid invoices (and those with money set
-- aside, receipts_set_aside): an index of only those, small since the expiry
-- worker moves them on, that holds what tells the ones past their expiry apart
-- and their ids, so those are passed over without reading their rows.
CREATE INDEX invoices_underpaid ON invoices (merchant_id, expires_at, amount_pending, id) WHERE status = 'underpaid';
