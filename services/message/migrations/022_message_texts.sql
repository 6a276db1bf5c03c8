-- Search in a message's text reads message_texts, written once with the
-- message and never updated. The GIN index of 004 on messages gained an entry
-- for every trigram of the text at every version of the row (a message has
-- three or four: queued, taken, sent, delivered), since a status change is
-- never a HOT update; here it gains them once. Deleted with the message by
-- the retention run.
CREATE TABLE message_texts (
  message_id text PRIMARY KEY,
  client_id  text NOT NULL,
  mode       text NOT NULL,
  body       text NOT NULL
);
INSERT INTO message_texts (message_id, client_id, mode, body) SELECT message_id, client_id, mode, body FROM messages;

-- As in 004: without btree_gin or pg_trgm, search scans this narrow table.
DO $$
DECLARE
  trgm_schema text;
  gin_schema text;
BEGIN
  SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  SELECT n.nspname INTO gin_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'btree_gin';
  IF trgm_schema IS NOT NULL AND gin_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX message_texts_search ON message_texts USING gin (client_id %I.text_ops, body %I.gin_trgm_ops)', gin_schema, trgm_schema);
  ELSIF trgm_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX message_texts_search ON message_texts USING gin (body %I.gin_trgm_ops)', trgm_schema);
  END IF;
END
$$;
DROP INDEX IF EXISTS messages_search;
DROP INDEX IF EXISTS messages_body_trgm;
