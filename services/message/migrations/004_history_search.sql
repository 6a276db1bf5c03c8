-- Search in the text, scoped to one client: a GIN index over (client_id, the
-- text's trigrams) gives a search only that client's candidates, however
-- many rows the other clients hold; the global trigram index of 002 gave
-- every client's, and each was read from the table to be rechecked.
-- btree_gin (for client_id) ships with PostgreSQL's contrib, as pg_trgm, and
-- both are trusted extensions (a role with CREATE on the database may create
-- them, no superuser needed). Without either, the migration still succeeds:
-- search keeps the index of 002 if there is one, or scans.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public;
EXCEPTION WHEN OTHERS THEN
  RAISE WARNING 'btree_gin unavailable (%): message search keeps its unscoped trigram index', SQLERRM;
END
$$;

DO $$
DECLARE
  trgm_schema text;
  gin_schema text;
BEGIN
  SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  SELECT n.nspname INTO gin_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'btree_gin';
  IF trgm_schema IS NOT NULL AND gin_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX messages_search ON messages USING gin (client_id %I.text_ops, body %I.gin_trgm_ops)', gin_schema, trgm_schema);
    DROP INDEX IF EXISTS messages_body_trgm;
  END IF;
END
$$;
