-- History: a page is always one client's messages in one mode, newest first,
-- narrowed by at most a few filters. Each index below serves one filter and
-- hands rows over already in page order (created_at DESC, message_id DESC),
-- so a page reads about `limit` index entries. Totals mostly come from
-- message_counts below; these indexes count only what it cannot (the partial
-- days at the ends of a date range, a recipient, a search).
DROP INDEX IF EXISTS messages_client_created;
CREATE INDEX messages_history ON messages (client_id, mode, created_at DESC, message_id DESC);
CREATE INDEX messages_history_status ON messages (client_id, mode, status, created_at DESC, message_id DESC);
CREATE INDEX messages_history_to ON messages (client_id, mode, to_number, created_at DESC, message_id DESC);
CREATE INDEX messages_history_device ON messages (client_id, mode, device_id, created_at DESC, message_id DESC);

-- The retention job deletes by age across every client.
CREATE INDEX messages_created ON messages (created_at);

-- The simulated device of test keys claims any client's due test message.
CREATE INDEX messages_test_queue ON messages (priority, due_at, message_id)
  WHERE mode = 'test' AND status = 'queued' AND accepted_at IS NULL;

-- Search in the text: a trigram index lets ILIKE '%words%' skip most rows.
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension, but a
-- server without contrib, or a role that may not create it, must still be
-- able to start: search then works without the index, only slower. The
-- extension goes to `public`, shared by every schema, so dropping one
-- service's (or test's) schema never takes it away from the others.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN OTHERS THEN
  RAISE WARNING 'pg_trgm unavailable (%): message search runs without a trigram index', SQLERRM;
END
$$;

DO $$
DECLARE
  trgm_schema text;
BEGIN
  SELECT n.nspname INTO trgm_schema
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
  WHERE e.extname = 'pg_trgm';
  IF trgm_schema IS NOT NULL THEN
    EXECUTE format('CREATE INDEX messages_body_trgm ON messages USING gin (body %I.gin_trgm_ops)', trgm_schema);
  END IF;
END
$$;

-- What the retention job leaves of deleted messages: counts per client, mode,
-- device and UTC day of created_at, by the status each message had when it
-- was deleted. Statistics add these to message_counts (the messages kept).
CREATE TABLE daily_rollups (
  client_id text NOT NULL,
  mode      text NOT NULL CHECK (mode IN ('live', 'test')),
  device_id text NOT NULL,
  day       date NOT NULL,
  queued    integer NOT NULL DEFAULT 0,
  sent      integer NOT NULL DEFAULT 0,
  delivered integer NOT NULL DEFAULT 0,
  failed    integer NOT NULL DEFAULT 0,
  cancelled integer NOT NULL DEFAULT 0,
  PRIMARY KEY (client_id, mode, device_id, day)
);
CREATE INDEX daily_rollups_client_day ON daily_rollups (client_id, mode, day);

-- The messages still kept, counted per client, mode, UTC day of created_at,
-- device and current status, and kept exact by the triggers below in the
-- same transaction as every change of a message. The exact totals of the
-- history and the statistics are sums over at most a few rows a day here
-- instead of counts over up to millions of messages.
CREATE TABLE message_counts (
  client_id text NOT NULL,
  mode      text NOT NULL,
  day       date NOT NULL,
  device_id text NOT NULL,
  status    text NOT NULL,
  n         integer NOT NULL,
  PRIMARY KEY (client_id, mode, day, device_id, status)
);

INSERT INTO message_counts (client_id, mode, day, device_id, status, n)
SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date, device_id, status, count(*)
FROM messages
GROUP BY 1, 2, 3, 4, 5;

-- The functions keep the search_path of this migration, so that a session
-- with another one (an operator's psql, a test) still finds message_counts.
-- Keys are taken in one order (ORDER BY, then the lesser key first) so that
-- concurrent writers queue on a counter instead of deadlocking.
CREATE FUNCTION message_counts_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO message_counts AS c (client_id, mode, day, device_id, status, n)
  SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date, device_id, status, count(*)
  FROM inserted
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (client_id, mode, day, device_id, status) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;

CREATE FUNCTION message_counts_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO message_counts AS c (client_id, mode, day, device_id, status, n)
  SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date, device_id, status, -count(*)
  FROM deleted
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (client_id, mode, day, device_id, status) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;

CREATE FUNCTION message_counts_move() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  old_key message_counts;
  new_key message_counts;
  step message_counts;
BEGIN
  old_key := ROW(OLD.client_id, OLD.mode, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.device_id, OLD.status, -1);
  new_key := ROW(NEW.client_id, NEW.mode, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.device_id, NEW.status, 1);
  IF (old_key.client_id, old_key.mode, old_key.day, old_key.device_id, old_key.status)
     = (new_key.client_id, new_key.mode, new_key.day, new_key.device_id, new_key.status) THEN
    RETURN NULL;
  END IF;
  FOR step IN
    SELECT * FROM unnest(ARRAY[old_key, new_key]) ORDER BY client_id, mode, day, device_id, status
  LOOP
    INSERT INTO message_counts AS c (client_id, mode, day, device_id, status, n)
    VALUES (step.client_id, step.mode, step.day, step.device_id, step.status, step.n)
    ON CONFLICT (client_id, mode, day, device_id, status) DO UPDATE SET n = c.n + excluded.n;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE FUNCTION message_counts_truncate() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM message_counts;
  RETURN NULL;
END
$$;

CREATE TRIGGER messages_count_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION message_counts_insert();
CREATE TRIGGER messages_count_delete AFTER DELETE ON messages
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION message_counts_delete();
CREATE TRIGGER messages_count_move AFTER UPDATE OF client_id, mode, created_at, device_id, status ON messages
  FOR EACH ROW
  WHEN ((OLD.client_id, OLD.mode, OLD.created_at, OLD.device_id, OLD.status)
        IS DISTINCT FROM (NEW.client_id, NEW.mode, NEW.created_at, NEW.device_id, NEW.status))
  EXECUTE FUNCTION message_counts_move();
CREATE TRIGGER messages_count_truncate AFTER TRUNCATE ON messages
  FOR EACH STATEMENT EXECUTE FUNCTION message_counts_truncate();
