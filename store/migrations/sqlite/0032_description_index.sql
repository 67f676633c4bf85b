-- Issue 40: a search for a piece of the description reads an FTS5 trigram index
-- (docs/performance.md, "The store at size"; decisions.md, "The store at size").
-- The index is filled off the create path: a background round
-- (store.DB.IndexDescriptions) indexes the invoices past
-- invoice_descriptions_indexed.through in batches and moves it on, in one
-- transaction; a search reads the index up to there and scans the invoices after
-- it by rowid. The index keeps no copy of the text (external content: invoices, by
-- rowid), no positions (detail=none: a search asks for every trigram of the text,
-- and each candidate is checked with the scan's LIKE) and no sizes (columnsize=0:
-- nothing ranks). The triggers keep the indexed part in step with a change or
-- removal of a description, and index at once an invoice that reuses a rowid the
-- index has passed (SQLite reuses the largest rowid after a delete of it).
CREATE VIRTUAL TABLE invoice_descriptions USING fts5 (description, content = 'invoices',
    content_rowid = 'rowid', tokenize = 'trigram case_sensitive 0', detail = none, columnsize = 0);
CREATE TABLE invoice_descriptions_indexed (through INTEGER NOT NULL);
INSERT INTO invoice_descriptions_indexed (through) VALUES (0);

CREATE TRIGGER invoice_descriptions_insert AFTER INSERT ON invoices
WHEN new.description IS NOT NULL AND new.rowid <= (SELECT through FROM invoice_descriptions_indexed) BEGIN
    INSERT INTO invoice_descriptions (rowid, description) VALUES (new.rowid, new.description);
END;
CREATE TRIGGER invoice_descriptions_update AFTER UPDATE OF description ON invoices
WHEN old.rowid <= (SELECT through FROM invoice_descriptions_indexed) BEGIN
    INSERT INTO invoice_descriptions (invoice_descriptions, rowid, description)
        SELECT 'delete', old.rowid, old.description WHERE old.description IS NOT NULL;
    INSERT INTO invoice_descriptions (rowid, description)
        SELECT new.rowid, new.description WHERE new.description IS NOT NULL;
END;
CREATE TRIGGER invoice_descriptions_delete AFTER DELETE ON invoices
WHEN old.description IS NOT NULL AND old.rowid <= (SELECT through FROM invoice_descriptions_indexed) BEGIN
    INSERT INTO invoice_descriptions (invoice_descriptions, rowid, description)
        VALUES ('delete', old.rowid, old.description);
END;
