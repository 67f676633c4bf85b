-- Issue 40: a search for a piece of the description reads a trigram index instead
-- of scanning the merchant's invoices (docs/performance.md, "The store at size").
-- pg_trgm is a trusted extension that ships with PostgreSQL (contrib). It is made
-- once per database, in schema public, so that dropping a schema of Kassa's never
-- drops it from under another; the index names its operator class by that schema.
-- A server without the extension, or a role that may not create it, keeps the
-- scan: the migration warns and makes no index (the answers are the same).
DO $$
DECLARE
    s name;
BEGIN
    SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pg_trgm';
    IF s IS NULL THEN
        BEGIN
            CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
        EXCEPTION
            WHEN unique_violation OR duplicate_object THEN NULL; -- made meanwhile by another schema's migration
            WHEN insufficient_privilege OR undefined_file OR feature_not_supported OR invalid_schema_name THEN
                RAISE WARNING 'kassa: no pg_trgm (%): searches of invoice descriptions scan', SQLERRM;
                RETURN;
        END;
        SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
            WHERE e.extname = 'pg_trgm';
    END IF;
    EXECUTE format('CREATE INDEX invoices_description_trgm ON invoices USING gin (LOWER(description) %I.gin_trgm_ops)', s);
END $$;
