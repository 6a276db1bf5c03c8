-- SMS the client's phones received (issue 24). One row per SMS, made when its
-- first copy arrives: the phone resends an SMS until the hub acknowledges it,
-- and (device_id, received_id) finds the same row again for every copy.
-- `received_at` is the phone's time of arrival, never later than `created_at`
-- (a phone's clock ahead of ours is brought back to the time of storing); the
-- inbox lists and filters by it, statistics count by its UTC day, and the
-- retention deletes by `created_at` (so an SMS that reaches us late stays the
-- whole retention in the inbox).
CREATE TABLE received_messages (
  id          text PRIMARY KEY,
  client_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  device_id   text NOT NULL,
  received_id text NOT NULL,
  -- The SIM slot it arrived on, 1 to n; NULL when the phone did not say.
  sim         smallint CHECK (sim >= 1),
  from_number text NOT NULL,
  body        text NOT NULL,
  received_at timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (received_at <= created_at),
  UNIQUE (device_id, received_id)
);

-- The inbox: one client's records in one mode, newest first, each index
-- handing rows over in page order for one filter (as the history's of 002).
CREATE INDEX received_inbox ON received_messages (client_id, mode, received_at DESC, id DESC);
CREATE INDEX received_inbox_from ON received_messages (client_id, mode, from_number, received_at DESC, id DESC);
CREATE INDEX received_inbox_device ON received_messages (client_id, mode, device_id, received_at DESC, id DESC);

-- The retention deletes by age across every client.
CREATE INDEX received_created ON received_messages (created_at);

-- Search in the text, scoped to one client, as messages_search of 004; without
-- pg_trgm or btree_gin the migration still succeeds and search scans.
DO $$
DECLARE
  trgm_schema text;
  gin_schema text;
BEGIN
  SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  SELECT n.nspname INTO gin_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'btree_gin';
  IF trgm_schema IS NOT NULL AND gin_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX received_search ON received_messages USING gin (client_id %I.text_ops, body %I.gin_trgm_ops)', gin_schema, trgm_schema);
  ELSE
    RAISE WARNING 'pg_trgm or btree_gin unavailable: received SMS search runs without a trigram index';
  END IF;
END
$$;

-- What the retention leaves of deleted received SMS: their count per client,
-- mode, device and UTC day of received_at. A constant default: no rewrite.
ALTER TABLE daily_rollups ADD COLUMN received integer NOT NULL DEFAULT 0;
