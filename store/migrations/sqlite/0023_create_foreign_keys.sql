-- PostgreSQL's 0023 drops the merchant foreign keys of invoices and events, whose
-- checks lock the merchant's row in every create batch. SQLite keeps them: its
-- check is a lookup inside the writer, and dropping one means rebuilding the
-- table. This file keeps the two engines' versions alike.
SELECT 1;
