-- Issue 40: a search for a piece of the description reads an FTS5 trigram index
-- instead of scanning the merchant's invoices (docs/performance.md, "The store at
-- size"). The index keeps no copy of the text (external content: invoices, by
-- rowid); triggers keep it in step with every insert, change and removal of a
-- description, in the same transaction. Its answers are candidates only: the
-- store checks each with the same LIKE as the scan (invoicedescription.go).
CREATE VIRTUAL TABLE invoice_descriptions USING fts5 (description, content = 'invoices',
    content_rowid = 'rowid', tokenize = 'trigram case_sensitive 0');
INSERT INTO invoice_descriptions (invoice_descriptions) VALUES ('rebuild');

CREATE TRIGGER invoice_descriptions_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO invoice_descriptions (rowid, description) VALUES (new.rowid, new.description);
END;
CREATE TRIGGER invoice_descriptions_update AFTER UPDATE OF description ON invoices BEGIN
    INSERT INTO invoice_descriptions (invoice_descriptions, rowid, description)
        VALUES ('delete', old.rowid, old.description);
    INSERT INTO invoice_descriptions (rowid, description) VALUES (new.rowid, new.description);
END;
CREATE TRIGGER invoice_descriptions_delete AFTER DELETE ON invoices BEGIN
    INSERT INTO invoice_descriptions (invoice_descriptions, rowid, description)
        VALUES ('delete', old.rowid, old.description);
END;
